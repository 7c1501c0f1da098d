import { isIP } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { AxxonCamera, AxxonMacro } from '@atrium/contract';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';

/** The folder of the compact Axxon One service definition (auth, domain and logic .proto files). */
export const AXXON_ONE_PROTO_DIR = fileURLToPath(new URL('./proto/', import.meta.url));
export const AXXON_ONE_PROTO_FILES = ['auth.proto', 'domain.proto', 'logic.proto'];

type Unary = (req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res: unknown) => void) => void;
type ServerStream = (req: unknown, meta: grpc.Metadata, opts: grpc.CallOptions) => grpc.ClientReadableStream<unknown>;
interface ServiceClient extends grpc.Client {
  [method: string]: unknown;
}
type ServiceCtor = grpc.ServiceClientConstructor;

/** The three services, loaded once from the same .proto files the test's fake server uses. */
export interface AxxonOneDefinition {
  AuthenticationService: ServiceCtor;
  DomainService: ServiceCtor;
  LogicService: ServiceCtor;
}

let loaded: AxxonOneDefinition | undefined;
export function axxonOneDefinition(): AxxonOneDefinition {
  if (loaded) return loaded;
  const def = protoLoader.loadSync(AXXON_ONE_PROTO_FILES, {
    includeDirs: [AXXON_ONE_PROTO_DIR],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
  });
  const pkg = grpc.loadPackageDefinition(def) as unknown as {
    axxonsoft: { bl: { auth: Record<string, ServiceCtor>; domain: Record<string, ServiceCtor>; logic: Record<string, ServiceCtor> } };
  };
  const bl = pkg.axxonsoft.bl;
  loaded = {
    AuthenticationService: bl.auth.AuthenticationService as ServiceCtor,
    DomainService: bl.domain.DomainService as ServiceCtor,
    LogicService: bl.logic.LogicService as ServiceCtor,
  };
  return loaded;
}

export interface AxxonOneConnection {
  /** `host:port` */
  url: string;
  /**
   * The address `url`'s host resolved to, connected to instead of resolving it again (the name still
   * goes as the authority and TLS's server name); absent: the host is resolved by gRPC.
   */
  address?: string;
  user: string;
  password: string;
  /** The server's certificate or its CA (PEM): TLS checked against it; null: plain-text gRPC. */
  certificate: string | null;
}

/**
 * Why a call failed: `unavailable` when the server could not be reached in time (refused, down,
 * deadline), `grpc` when it was reached but the call failed (TLS handshake, wrong password, refused).
 */
export class AxxonOneError extends Error {
  constructor(
    readonly kind: 'unavailable' | 'grpc',
    readonly grpcStatus: string,
    message: string,
  ) {
    super(message);
  }
}

const TLS_WORDS = /ssl|tls|certificate|handshake|self.signed|alert/i;

function toError(e: unknown): AxxonOneError {
  const err = e as Partial<grpc.ServiceError>;
  const code = typeof err.code === 'number' ? err.code : grpc.status.UNKNOWN;
  const name = grpc.status[code] ?? 'UNKNOWN';
  const text = String(err.details ?? err.message ?? '');
  const unreachable = code === grpc.status.DEADLINE_EXCEEDED || (code === grpc.status.UNAVAILABLE && !TLS_WORDS.test(text));
  return new AxxonOneError(unreachable ? 'unavailable' : 'grpc', name, text);
}

/**
 * One Axxon One server as Atrium uses it: sign in with the user and password (AuthenticationService
 * Authenticate gives a token, sent as `authorization` metadata), list cameras and macros, launch a
 * macro. Every call has a deadline; a token is reused until shortly before it expires, and a call the
 * server refuses as UNAUTHENTICATED signs in again once.
 */
export class AxxonOneClient {
  private readonly auth: ServiceClient;
  private readonly domain: ServiceClient;
  private readonly logic: ServiceClient;
  private token: { header: string; until: number } | undefined;

  constructor(
    readonly connection: AxxonOneConnection,
    private readonly deadlineMs = 5_000,
  ) {
    const d = axxonOneDefinition();
    const credentials = connection.certificate
      ? grpc.credentials.createSsl(Buffer.from(connection.certificate))
      : grpc.credentials.createInsecure();
    // One channel for the three services; no automatic reconnect storm: gRPC's own back-off applies.
    const options: grpc.ChannelOptions = { 'grpc.max_receive_message_length': 16 * 1024 * 1024 };
    let target = connection.url;
    if (connection.address) {
      const cut = connection.url.lastIndexOf(':');
      const host = connection.url.slice(0, cut).replace(/^\[|\]$/g, '');
      const port = connection.url.slice(cut + 1);
      target = isIP(connection.address) === 6 ? `ipv6:[${connection.address}]:${port}` : `ipv4:${connection.address}:${port}`;
      options['grpc.default_authority'] = connection.url;
      options['grpc.ssl_target_name_override'] = host;
    }
    this.auth = new d.AuthenticationService(target, credentials, options) as ServiceClient;
    const channelOverride = this.auth.getChannel();
    this.domain = new d.DomainService(target, credentials, { ...options, channelOverride }) as ServiceClient;
    this.logic = new d.LogicService(target, credentials, { ...options, channelOverride }) as ServiceClient;
  }

  private deadline(): grpc.CallOptions {
    return { deadline: Date.now() + this.deadlineMs };
  }

  private unary<T>(client: ServiceClient, method: string, req: unknown, meta = new grpc.Metadata()): Promise<T> {
    return new Promise((resolve, reject) => {
      (client[method] as Unary).call(client, req, meta, this.deadline(), (err, res) => (err ? reject(toError(err)) : resolve(res as T)));
    });
  }

  /** Signs in (or reuses the token, unless `fresh`) and answers the `authorization` header value. */
  async authenticate({ fresh = false }: { fresh?: boolean } = {}): Promise<string> {
    if (!fresh && this.token && this.token.until > Date.now()) return this.token.header;
    const res = await this.unary<{ token_name: string; token_value: string; expires_at: number }>(this.auth, 'Authenticate', {
      user_name: this.connection.user,
      password: this.connection.password,
    });
    const header = `${res.token_name || 'Bearer'} ${res.token_value}`;
    // Reused until 30 s before it ends (a token without an expiry: 5 minutes).
    const until = res.expires_at > 0 ? res.expires_at * 1000 - 30_000 : Date.now() + 300_000;
    this.token = { header, until };
    return header;
  }

  private async signed<T>(call: (meta: grpc.Metadata) => Promise<T>): Promise<T> {
    const meta = () => {
      const m = new grpc.Metadata();
      m.set('authorization', this.token?.header ?? '');
      return m;
    };
    await this.authenticate();
    try {
      return await call(meta());
    } catch (e) {
      if (!(e instanceof AxxonOneError) || e.grpcStatus !== 'UNAUTHENTICATED') throw e;
      this.token = undefined;
      await this.authenticate();
      return call(meta());
    }
  }

  /** Every camera, read page by page from the ListCameras stream. */
  cameras(): Promise<AxxonCamera[]> {
    return this.signed(
      (meta) =>
        new Promise<AxxonCamera[]>((resolve, reject) => {
          const out: AxxonCamera[] = [];
          const stream = (this.domain.ListCameras as ServerStream).call(
            this.domain,
            { view: 'VIEW_MODE_FULL', page_size: 500, filter: '', page_token: '' },
            meta,
            this.deadline(),
          );
          stream.on(
            'data',
            (page: { items: { access_point: string; display_name: string; display_id: string; is_activated: boolean }[] }) => {
              for (const c of page.items ?? []) {
                out.push({
                  access_point: c.access_point,
                  display_name: c.display_name,
                  display_id: c.display_id,
                  is_active: c.is_activated,
                });
              }
            },
          );
          stream.on('error', (e) => reject(toError(e)));
          stream.on('end', () => resolve(out));
        }),
    );
  }

  async macros(): Promise<AxxonMacro[]> {
    const res = await this.signed((meta) =>
      this.unary<{ items: { guid: string; name: string; mode: { enabled: boolean } | null }[] }>(
        this.logic,
        'ListMacros',
        { view: 'VIEW_MODE_FULL' },
        meta,
      ),
    );
    return (res.items ?? []).map((m) => ({ guid: m.guid, name: m.name, enabled: m.mode?.enabled ?? false }));
  }

  async launchMacro(macroId: string, data: Record<string, string> = {}): Promise<void> {
    await this.signed((meta) => this.unary(this.logic, 'LaunchMacro', { macro_id: macroId, data }, meta));
  }

  close(): void {
    this.domain.close();
    this.logic.close();
    this.auth.close();
  }
}
