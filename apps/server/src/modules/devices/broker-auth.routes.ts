import { BlockList, isIPv6 } from 'node:net';
import {
  MQTT_ROOT,
  RabbitAuthResourceSchema,
  RabbitAuthTopicSchema,
  RabbitAuthUserSchema,
  RabbitAuthVhostSchema,
  TOPIC_SAFE_SERIAL,
} from '@atrium/contract';
import type { AppInstance } from '../../app.js';

/** The callers allowed to ask (BROKER_AUTH_FROM): addresses, CIDRs and `loopback`. */
export function brokerAuthCallers(entries: readonly string[]): (ip: string) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    if (entry === 'loopback') {
      list.addSubnet('127.0.0.0', 8, 'ipv4');
      list.addAddress('::1', 'ipv6');
      continue;
    }
    const [address = '', bits] = entry.split('/');
    const type = isIPv6(address) ? 'ipv6' : 'ipv4';
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return (ip) => {
    // An IPv4 caller on a dual-stack socket arrives as ::ffff:a.b.c.d.
    const v4 = ip.startsWith('::ffff:') && !ip.slice(7).includes(':') ? ip.slice(7) : null;
    return v4 ? list.check(v4, 'ipv4') : list.check(ip, isIPv6(ip) ? 'ipv6' : 'ipv4');
  };
}

/**
 * RabbitMQ's HTTP auth backend (rabbitmq_auth_backend_http, POST): devices signing in to its MQTT
 * plugin are checked here, against the same device passwords the embedded broker checks; Atrium's
 * own AMQP user is RabbitMQ's internal one and never asks. A device may use the amq.topic exchange
 * and its own MQTT subscription queues, and publish and subscribe only under its own topics
 * (`atrium.v1.devices.<serial>.…`, the plugin's routing keys). Every answer is `allow` or `deny`.
 * Registered only when AMQP_URL is set. See docs/decisions.md, "Devices on RabbitMQ".
 */
export async function brokerAuthRoutes(app: AppInstance): Promise<void> {
  const form = { parseAs: 'string' as const };
  app.addContentTypeParser('application/x-www-form-urlencoded', form, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });
  const vhost = decodeURIComponent(new URL(app.config.amqpUrl ?? 'amqp://localhost/').pathname.slice(1)) || '/';
  const device = (username: string) => TOPIC_SAFE_SERIAL.test(username);
  const tags = ['devices'];
  const hide = true;
  const answer = (ok: boolean) => (ok ? 'allow' : 'deny');
  // A device password checked over HTTP is a guessing oracle for anyone who can reach the API:
  // only the broker's own addresses get an answer, everyone else a plain not-found.
  const allowed = brokerAuthCallers(app.config.brokerAuthFrom);
  app.addHook('onRequest', async (req, reply) => {
    if (!allowed(req.ip)) return reply.callNotFound();
  });
  /**
   * The plugin names a client's subscription queue after its client id; a device reads only its own:
   * client id its serial number (or the simulator's `sim-<serial>`), so no device can take over
   * another's queued tasks by signing in with the other's client id.
   */
  const ownQueue = (username: string, name: string) => {
    const client = /^mqtt-subscription-(.+)qos[01]$/.exec(name)?.[1];
    return client === username || client === `sim-${username}`;
  };

  app.post(
    '/broker-auth/rabbitmq/user',
    { config: { public: true }, schema: { tags, hide, body: RabbitAuthUserSchema } },
    async (req, reply) => {
      const { username, password } = req.body;
      const ok = device(username) && (await app.services.devices.verify(username, password)) !== null;
      return reply.type('text/plain').send(answer(ok));
    },
  );

  app.post(
    '/broker-auth/rabbitmq/vhost',
    { config: { public: true }, schema: { tags, hide, body: RabbitAuthVhostSchema } },
    async (req, reply) => reply.type('text/plain').send(answer(device(req.body.username) && req.body.vhost === vhost)),
  );

  app.post(
    '/broker-auth/rabbitmq/resource',
    { config: { public: true }, schema: { tags, hide, body: RabbitAuthResourceSchema } },
    async (req, reply) => {
      const { username, resource, name, permission } = req.body;
      const ok =
        device(username) &&
        req.body.vhost === vhost &&
        // The plugin publishes to amq.topic and binds a device's subscription queue to it.
        ((resource === 'exchange' && name === 'amq.topic' && permission !== 'configure') ||
          // Its own subscription queues.
          (resource === 'queue' && ownQueue(username, name)) ||
          resource === 'topic');
      return reply.type('text/plain').send(answer(ok));
    },
  );

  app.post(
    '/broker-auth/rabbitmq/topic',
    { config: { public: true }, schema: { tags, hide, body: RabbitAuthTopicSchema } },
    async (req, reply) => {
      const { username, name, routing_key: key } = req.body;
      const own = `${MQTT_ROOT.replaceAll('/', '.')}.devices.${username}.`;
      const ok = device(username) && req.body.vhost === vhost && name === 'amq.topic' && key.startsWith(own);
      return reply.type('text/plain').send(answer(ok));
    },
  );
}
