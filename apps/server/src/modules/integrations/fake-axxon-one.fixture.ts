import { randomUUID } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import { selfSignedCertificate } from '../../../test/certificates.js';
import { axxonOneDefinition } from './axxon-one.client.js';

/**
 * A fake Axxon One server for tests: the same .proto files Atrium's client loads, served by
 * @grpc/grpc-js, with a user and password, cameras and macros, and a record of launched macros.
 * `delayMs` holds every answer back (deadlines); `tls` serves with a self-made certificate.
 */
export interface FakeAxxonOne {
  port: number;
  /** `127.0.0.1:<port>` */
  url: string;
  /** The server's self-signed certificate (PEM) when started with TLS, else null. */
  certificate: string | null;
  user: string;
  password: string;
  cameras: { access_point: string; display_name: string; display_id: string; is_activated: boolean }[];
  macros: { guid: string; name: string; mode: { enabled: boolean } }[];
  launched: { macro_id: string; data: Record<string, string>; at: Date }[];
  /** Sign-ins answered (right or wrong). */
  authCalls: number;
  delayMs: number;
  /** Forgets every token given, as a restarted server would. */
  forgetTokens(): void;
  close(): Promise<void>;
}

export async function startFakeAxxonOne(
  opts: {
    user?: string;
    password?: string;
    tls?: boolean;
    port?: number;
    cameras?: FakeAxxonOne['cameras'];
    macros?: FakeAxxonOne['macros'];
  } = {},
): Promise<FakeAxxonOne> {
  const d = axxonOneDefinition();
  const tokens = new Set<string>();
  const tls = opts.tls ? selfSignedCertificate() : null;
  const server = new grpc.Server();
  const fake: FakeAxxonOne = {
    port: 0,
    url: '',
    certificate: tls?.cert ?? null,
    user: opts.user ?? 'root',
    password: opts.password ?? 'axxon-password',
    cameras: opts.cameras ?? [
      {
        access_point: 'hosts/Server1/DeviceIpint.1/SourceEndpoint.video:0:0',
        display_name: 'Entrance',
        display_id: '1',
        is_activated: true,
      },
      {
        access_point: 'hosts/Server1/DeviceIpint.2/SourceEndpoint.video:0:0',
        display_name: 'Parking',
        display_id: '2',
        is_activated: false,
      },
    ],
    macros: opts.macros ?? [
      { guid: 'a1b2c3d4-0000-4000-8000-000000000001', name: 'Record entrance', mode: { enabled: true } },
      { guid: 'a1b2c3d4-0000-4000-8000-000000000002', name: 'Alarm to operator', mode: { enabled: true } },
    ],
    launched: [],
    authCalls: 0,
    delayMs: 0,
    forgetTokens: () => tokens.clear(),
    async close() {
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
      server.forceShutdown();
    },
  };
  const later = <T>(fn: () => T): Promise<T> => new Promise((resolve) => setTimeout(() => resolve(fn()), fake.delayMs));
  const authorized = (call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>) => {
    const h = String(call.metadata.get('authorization')[0] ?? '');
    return tokens.has(h.replace(/^Bearer /, ''));
  };
  const unauthenticated = { code: grpc.status.UNAUTHENTICATED, details: 'not authenticated' };

  server.addService(d.AuthenticationService.service, {
    Authenticate: (call: grpc.ServerUnaryCall<{ user_name: string; password: string }, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      fake.authCalls++;
      void later(() => {
        if (call.request.user_name !== fake.user || call.request.password !== fake.password) {
          return cb({ code: grpc.status.UNAUTHENTICATED, details: 'wrong user name or password' });
        }
        const token = randomUUID();
        tokens.add(token);
        cb(null, { token_name: 'Bearer', token_value: token, expires_at: Math.floor(Date.now() / 1000) + 3600, user_id: fake.user });
      });
    },
  });
  server.addService(d.DomainService.service, {
    ListCameras: (call: grpc.ServerWritableStream<{ page_size: number }, unknown>) => {
      void later(() => {
        if (!authorized(call)) return call.emit('error', unauthenticated);
        const size = Math.max(1, call.request.page_size || 100);
        // Pages of `size`, as the real server streams them.
        for (let i = 0; i < fake.cameras.length; i += size) call.write({ items: fake.cameras.slice(i, i + size), next_page_token: '' });
        call.end();
      });
    },
  });
  server.addService(d.LogicService.service, {
    ListMacros: (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      void later(() => (authorized(call) ? cb(null, { items: fake.macros }) : cb(unauthenticated)));
    },
    LaunchMacro: (
      call: grpc.ServerUnaryCall<{ macro_id: string; data: Record<string, string> }, unknown>,
      cb: grpc.sendUnaryData<unknown>,
    ) => {
      void later(() => {
        if (!authorized(call)) return cb(unauthenticated);
        if (!fake.macros.some((m) => m.guid === call.request.macro_id))
          return cb({ code: grpc.status.NOT_FOUND, details: 'macro not found' });
        fake.launched.push({ macro_id: call.request.macro_id, data: { ...call.request.data }, at: new Date() });
        cb(null, {});
      });
    },
  });
  const credentials = tls
    ? grpc.ServerCredentials.createSsl(null, [{ cert_chain: Buffer.from(tls.cert), private_key: Buffer.from(tls.key) }], false)
    : grpc.ServerCredentials.createInsecure();
  fake.port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${opts.port ?? 0}`, credentials, (err, port) => (err ? reject(err) : resolve(port))),
  );
  fake.url = `127.0.0.1:${fake.port}`;
  return fake;
}
