import { SipEdgeEventSchema, SipEdgeRouteRequestSchema, SipEdgeRouteSchema } from '@atrium/contract';
import type { AppInstance } from '../../app.js';
import { brokerAuthCallers } from '../devices/broker-auth.routes.js';
import { ensureEdgeSchema, SipEdge } from './sip-edge.js';
import { telephonyOf } from './telephony.js';

/**
 * Kamailio at the SIP edge asks here where a call goes (POST /sip-edge/route) and reports what
 * became of it (POST /sip-edge/event); see sip-edge.ts and deploy/kamailio/README.md. Registered
 * only with SIP_EDGE=kamailio. A route answers with the callee's forward targets and the names of
 * numbers: only Kamailio's addresses (SIP_EDGE_FROM) get an answer, every other caller the app's
 * plain not-found, as for RabbitMQ's auth backend.
 */
export async function sipEdgeRoutes(app: AppInstance): Promise<void> {
  const edge = app.config.sip.edge;
  if (!edge) return;
  await ensureEdgeSchema(app.database.db);
  const { directory, recorder, calls } = telephonyOf(app);
  const sipEdge = new SipEdge(app.database.db, directory, recorder, edge.rpc ?? []);
  // The console's "stop call" ends the real call through Kamailio's RPC (SIP_EDGE_RPC), not only its record.
  // The console's dialer registers with Kamailio's WebSocket, named by SIP_EDGE_WS_URL (its host is the SIP domain).
  const endpoint = edge.wsUrl ? { domain: new URL(edge.wsUrl).hostname, wsUrl: edge.wsUrl } : undefined;
  calls.attachEdge((callId) => sipEdge.endCall(callId), endpoint);
  const allowed = brokerAuthCallers(edge.from);
  app.addHook('onRequest', async (req, reply) => {
    if (!allowed(req.ip)) return reply.callNotFound();
  });
  // Kamailio writes these bodies by hand, escaping strings with s.escape.common, whose \' is not
  // JSON: that one escape is undone, every other pair kept as it is, before JSON.parse.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, JSON.parse(String(body).replace(/\\(.)/g, (pair, c: string) => (c === "'" ? "'" : pair))));
    } catch {
      const err = Object.assign(new Error('Body is not valid JSON'), { statusCode: 400 });
      done(err, undefined);
    }
  });
  const tags = ['telephony'];
  const hide = true;

  app.post(
    '/sip-edge/route',
    { config: { public: true }, schema: { tags, hide, body: SipEdgeRouteRequestSchema, response: { 200: SipEdgeRouteSchema } } },
    async (req) => sipEdge.route(req.body),
  );

  app.post('/sip-edge/event', { config: { public: true }, schema: { tags, hide, body: SipEdgeEventSchema } }, async (req, reply) => {
    await sipEdge.event(req.body);
    return reply.code(204).send();
  });
}
