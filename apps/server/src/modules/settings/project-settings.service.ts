import { createPrivateKey, X509Certificate } from 'node:crypto';
import {
  type BrokerSendResult,
  type BrokerSettings,
  type BrokerStatus,
  GENERAL_SETTINGS_DEFAULTS,
  type GeneralSettings,
  type Locale,
  type MobileAppFeature,
  type MobileWhiteLabel,
  type PushSettings,
  SIP_SETTINGS_DEFAULTS,
  type SipInterface,
  type SipNode,
  type SipSettings,
  type SmtpFormBody,
  type SmtpSettings,
  type TermsSettings,
  type TestMailBody,
  type UpdateGeneralSettingsBody,
  type UpdatePushSettingsBody,
  type UpdateSipSettingsBody,
  type UpdateTermsSettingsBody,
  type UpdateWhiteLabelBody,
  WHITE_LABEL_LOGO_MAX_BYTES,
  type WhiteLabelSettings,
} from '@atrium/contract';
import { recordAudit } from '../../core/audit.js';
import { type Actor, can, type RequestContext } from '../../core/context.js';
import type { Db } from '../../core/db/client.js';
import { AppError, prohibited } from '../../core/errors.js';
import { type FileStore, storableImage } from '../../core/files.js';
import { describeSmtpError, sendSmtp } from '../../core/mail/smtp.js';
import { outboundAddresses, type Resolve } from '../../core/outbound.js';
import { safeHtml } from '../../core/safe-html.js';
import type { ProjectSettingsRepository, StoredProject } from './project-settings.repository.js';
import { DEFAULT_TERMS } from './terms.js';

/** SMTP as kept under `settings.smtp`: the mailer's shape (core/mail) plus what the form shows. */
interface StoredSmtp extends SmtpSettings {
  from_address?: string;
  from_name?: string | null;
  encryption?: 'none' | 'ssl' | 'tls';
}
interface StoredSip extends Partial<Omit<SipSettings, 'server' | 'interfaces' | 'nodes'>> {
  server?: { internal_ip: string | null; external_ip: string | null };
}
interface StoredPush {
  is_enabled?: boolean;
  url?: string | null;
  token?: string | null;
}
interface StoredWhiteLabel {
  name?: string | null;
  address?: string | null;
  email?: string | null;
  phone?: string | null;
  logo?: string | null;
  app_store_url?: string | null;
  google_play_url?: string | null;
}
/** The operator's terms and conditions per language, as stored (already sanitized); absent: the built-in text. */
type StoredTerms = Partial<Record<Locale, string>>;
interface StoredBroker {
  use_user_certs?: boolean;
  certificate?: string | null;
  key?: string | null;
}

/**
 * The SIP listeners this instance runs (modules/telephony/sip-runtime), told when the default
 * project's SIP tab is saved here. (Saved on another instance, the change feed brings it.)
 */
export interface SipListenerControl {
  ports(): { port: number; ws_port: number };
  /** The sockets the SIP server listens on now (transport, bound address, port). */
  interfaces(): SipInterface[];
  /** The SIP server instances this instance runs, with their state. */
  nodes(): SipNode[];
  /**
   * Runs `fn` alone: no other change of this instance's SIP server (a change heard from another
   * instance, a restart) runs meanwhile. `apply` and `configure` are called inside it.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T>;
  /** Rebinds the listeners to these ports; throws AppError('sip_service_start_failed') when one is taken. */
  apply(next: { port: number; ws_port: number }): Promise<void>;
  /**
   * Applies the rest of the SIP tab to the running server: addresses, local networks and early media
   * at once; the RTP range and addresses also restart the media relay when Atrium runs it.
   */
  configure(settings: SipSettings): Promise<void>;
}

/** The embedded MQTT broker this instance runs (main.ts), for the broker tab's status and restart. */
export interface BrokerControl {
  status(): { is_running: boolean; started_at: string | null; tls_port: number | null };
  restart(): Promise<void>;
  /** Opens MQTT over TLS with this certificate and key (PEM), or closes it (null); throws when it cannot listen. */
  applyTls(pair: { cert: string; key: string } | null): Promise<void>;
}

const has = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
/** A masked secret coming back: null or absent keeps what is stored; '' clears it. */
const secret = (incoming: string | null | undefined, stored: string | null | undefined): string | null =>
  incoming === undefined || incoming === null ? (stored ?? null) : incoming === '' ? null : incoming;

/** What a certificate is, as the broker tab shows it. */
function describeCertificate(pem: string) {
  const c = new X509Certificate(pem);
  return {
    subject: c.subject.replace(/\n/g, ', '),
    issuer: c.issuer.replace(/\n/g, ', '),
    valid_from: new Date(c.validFrom).toISOString(),
    valid_to: new Date(c.validTo).toISOString(),
    fingerprint: c.fingerprint256,
  };
}

/** Why a PEM certificate and key are not a usable pair, or null. */
export function certificatePairProblem(certificate: string, key: string): { field: string; message: string } | null {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certificate);
  } catch {
    return { field: 'certfile', message: 'the certificate cannot be read' };
  }
  let k: ReturnType<typeof createPrivateKey>;
  try {
    k = createPrivateKey(key);
  } catch {
    return { field: 'keyfile', message: 'the key cannot be read' };
  }
  if (!cert.checkPrivateKey(k)) return { field: 'keyfile', message: 'the key does not belong to the certificate' };
  if (Date.parse(cert.validTo) < Date.now()) return { field: 'certfile', message: 'the certificate has expired' };
  return null;
}

/**
 * Project settings (spec comms §3 "Project settings", §5, §6, §7): the general, SIP, push, broker and
 * white-label tabs, kept in the project's settings document. Reading needs view or change project
 * settings; changing needs change. Secrets are never read back.
 */
export class ProjectSettingsService {
  private sipControl: SipListenerControl | null = null;
  private brokerControl: BrokerControl | null = null;

  constructor(
    private readonly db: Db,
    private readonly repo: ProjectSettingsRepository,
    private readonly files: FileStore,
    private readonly opts: {
      brokerMode: () => 'embedded' | 'external' | 'none';
      brokerConnected: () => boolean | null;
      /** Where devices reach the broker over plain MQTT, and over TLS with the own certificate, for a project's server URL. */
      deviceBroker?: (serverUrl: string | null) => { url: string; tlsUrl: string | null };
      /** Queues the broker_settings task to the project's devices (modules/devices); answers how many. */
      sendBrokerSettings?: (ctx: RequestContext, payload: Record<string, unknown>) => Promise<number>;
      /** A push server at a loopback, private or special-purpose address allowed (PUSH_ALLOW_PRIVATE). */
      pushAllowPrivate?: boolean;
      resolve?: Resolve;
      /** Refuses (403) a mobile-app feature the licence does not include for the actor (core/license-guard). */
      assertMobileFeature?: (actor: Actor, feature: MobileAppFeature) => Promise<void>;
    },
  ) {}

  attachSip(control: SipListenerControl | null): void {
    this.sipControl = control;
  }

  attachBroker(control: BrokerControl | null): void {
    this.brokerControl = control;
  }

  private assertView(actor: Actor, extra?: 'can_view_management_company_info'): void {
    if (can(actor, 'can_view_project_settings') || can(actor, 'can_change_project_settings')) return;
    if (extra && can(actor, extra)) return;
    throw prohibited([{ permission: 'can_view_project_settings' }]);
  }

  private assertChange(actor: Actor): void {
    if (!can(actor, 'can_change_project_settings')) throw prohibited([{ permission: 'can_change_project_settings' }]);
  }

  private async load(projectId: number): Promise<StoredProject> {
    const p = await this.repo.project(projectId);
    if (!p) throw new AppError('not_found');
    return p;
  }

  /** Runs a change of the project's settings document under its row lock, with its audit row. */
  private async change<T>(
    ctx: RequestContext,
    entity: string,
    view: (p: StoredProject) => T,
    make: (p: StoredProject) => Promise<{ set?: Record<string, unknown>; drop?: string[]; name?: string; description?: string | null }>,
  ): Promise<T> {
    return this.db.transaction(async (tx) => {
      const before = await this.repo.project(ctx.actor.projectId, tx, true);
      if (!before) throw new AppError('not_found');
      const w = await make(before);
      await this.repo.write(tx, before.id, w);
      const settings = { ...before.settings, ...(w.set ?? {}) };
      for (const k of w.drop ?? []) delete settings[k];
      const next: StoredProject = {
        ...before,
        settings,
        ...(w.name !== undefined ? { name: w.name } : {}),
        ...(w.description !== undefined ? { description: w.description } : {}),
      };
      await recordAudit(tx, ctx, { entity, entityId: before.id, action: 'update', before: view(before), after: view(next) });
      return view(next);
    });
  }

  // ---- general ---------------------------------------------------------------------------------

  private generalView(p: StoredProject): GeneralSettings {
    const s = p.settings;
    const smtp = s.smtp as StoredSmtp | undefined;
    const sdk = (s.mobile_sdk_settings ?? {}) as { is_enabled?: boolean; api_key?: string | null };
    return {
      name: p.name,
      description: p.description,
      can_user_register_by_token: (s.can_user_register_by_token as boolean) ?? GENERAL_SETTINGS_DEFAULTS.can_user_register_by_token,
      can_user_recovery_password: (s.can_user_recovery_password as boolean) ?? GENERAL_SETTINGS_DEFAULTS.can_user_recovery_password,
      can_user_register_by_self: (s.can_user_register_by_self as boolean) ?? GENERAL_SETTINGS_DEFAULTS.can_user_register_by_self,
      server_url: (s.server_url as string) ?? null,
      time_zone: (s.time_zone as string) ?? GENERAL_SETTINGS_DEFAULTS.time_zone,
      mail_settings: smtp
        ? {
            type: 'smtp',
            settings: {
              host: smtp.host,
              port: smtp.port,
              username: smtp.user ?? null,
              password: null,
              has_password: has(smtp.password),
              from_address: smtp.from_address ?? smtp.from,
              from_name: smtp.from_name ?? null,
              encryption: smtp.encryption ?? (smtp.secure ? 'ssl' : 'none'),
            },
          }
        : { type: 'none', settings: null },
      logs_life: (s.logs_life as number) ?? GENERAL_SETTINGS_DEFAULTS.logs_life,
      admin_email: (s.admin_email as string) ?? null,
      notify_about_offline_device: (s.notify_about_offline_device as boolean) ?? false,
      notify_about_device_task_failed: (s.notify_about_device_task_failed as boolean) ?? false,
      locale: (s.locale as Locale) ?? GENERAL_SETTINGS_DEFAULTS.locale,
      guest_identifier_limits: (s.guest_identifier_limits as GeneralSettings['guest_identifier_limits']) ?? {
        max_passes_count: null,
        max_period_days: null,
      },
      mobile_sdk_settings: { is_enabled: sdk.is_enabled ?? false, api_key: null, has_api_key: has(sdk.api_key) },
      user_self_register_settings: (s.user_self_register_settings as GeneralSettings['user_self_register_settings']) ?? { clients: [] },
      license_settings: (s.license_settings as GeneralSettings['license_settings']) ?? { basic_license: { period: null, qty: null } },
    };
  }

  async general(actor: Actor): Promise<GeneralSettings> {
    this.assertView(actor);
    return this.generalView(await this.load(actor.projectId));
  }

  /** The form's SMTP as the mailer keeps it; a null password is the stored one. */
  private smtpFrom(body: SmtpFormBody, stored: StoredSmtp | undefined): StoredSmtp {
    const name = body.from_name?.replace(/["<>\r\n]/g, '').trim() || null;
    return {
      host: body.host,
      port: body.port,
      secure: body.encryption === 'ssl',
      user: body.username || null,
      password: secret(body.password, stored?.password),
      from: name ? `"${name}" <${body.from_address}>` : body.from_address,
      from_address: body.from_address,
      from_name: name,
      encryption: body.encryption,
    };
  }

  async updateGeneral(ctx: RequestContext, body: UpdateGeneralSettingsBody): Promise<GeneralSettings> {
    this.assertChange(ctx.actor);
    const roleIds = (body.user_self_register_settings?.clients ?? []).map((c) => c.role_id).filter((id): id is number => id !== null);
    const known = await this.repo.roleIds(ctx.actor.projectId, roleIds);
    const bad = roleIds.filter((id) => !known.has(id));
    if (bad.length)
      throw new AppError('invalid_related_entity', [{ field: 'user_self_register_settings.clients', entity: 'roles', ids: bad }]);
    let told = '';
    const view = await this.change(
      ctx,
      'project_settings_general',
      (p) => this.generalView(p),
      async (before) => {
        told = JSON.stringify(this.brokerPayload(before));
        const s = before.settings;
        const { name, description, mail_settings, mobile_sdk_settings, ...plain } = body;
        const set: Record<string, unknown> = {};
        const drop: string[] = [];
        for (const [k, v] of Object.entries(plain)) if (v !== undefined) set[k] = v;
        if (mail_settings?.type === 'smtp') set.smtp = this.smtpFrom(mail_settings.settings, s.smtp as StoredSmtp | undefined);
        if (mail_settings?.type === 'none') drop.push('smtp');
        if (mobile_sdk_settings) {
          const stored = (s.mobile_sdk_settings ?? {}) as { api_key?: string | null };
          set.mobile_sdk_settings = {
            is_enabled: mobile_sdk_settings.is_enabled,
            api_key: secret(mobile_sdk_settings.api_key, stored.api_key),
          };
        }
        // Device notifications are mailed to the administrator: the address must stay while they are on.
        const merged = { ...s, ...set };
        if ((merged.notify_about_offline_device || merged.notify_about_device_task_failed) && !merged.admin_email) {
          throw new AppError('invalid_data', [{ field: 'admin_email', message: 'validation.required' }]);
        }
        return {
          set,
          drop,
          ...(name !== undefined ? { name } : {}),
          ...(description !== undefined ? { description } : {}),
        };
      },
    );
    await this.tellDevicesOfBroker(ctx, told);
    return view;
  }

  /** Sends the broker settings to the devices when what they are told differs from `told` (before a change). */
  private async tellDevicesOfBroker(ctx: RequestContext, told: string): Promise<void> {
    const next = this.brokerPayload(await this.load(ctx.actor.projectId));
    if (next && JSON.stringify(next) !== told) await this.opts.sendBrokerSettings?.(ctx, next);
  }

  /** Sends a test message with the given SMTP settings (the stored password when it comes back masked). */
  async testMail(ctx: RequestContext, body: TestMailBody): Promise<{ sent: true }> {
    this.assertChange(ctx.actor);
    const p = await this.load(ctx.actor.projectId);
    const smtp = this.smtpFrom(body.mail_settings.settings, p.settings.smtp as StoredSmtp | undefined);
    try {
      await sendSmtp(smtp, {
        to: body.email,
        subject: `${p.name}: test message`,
        text: `This is a test message from Atrium (project ${p.name}). The mail settings work.`,
      });
    } catch (e) {
      throw new AppError('test_mail_failed', [{ field: 'mail_settings', message: describeSmtpError(e, smtp) }]);
    }
    return { sent: true };
  }

  // ---- SIP ---------------------------------------------------------------------------------------

  private sipView(p: StoredProject, running: { port: number; ws_port: number } | null): SipSettings {
    const s = (p.settings.sip ?? {}) as StoredSip;
    return {
      port: s.port ?? running?.port ?? SIP_SETTINGS_DEFAULTS.port,
      ws_port: s.ws_port ?? running?.ws_port ?? SIP_SETTINGS_DEFAULTS.ws_port,
      server: s.server ?? { internal_ip: null, external_ip: null },
      rtp: s.rtp ?? { ...SIP_SETTINGS_DEFAULTS.rtp },
      is_early_media_enabled: s.is_early_media_enabled ?? false,
      // What is running is read from the SIP server itself, never stored: only when it runs this project's tab.
      interfaces: running ? (this.sipControl?.interfaces() ?? []) : [],
      local_networks: s.local_networks ?? [],
      nodes: running ? (this.sipControl?.nodes() ?? []) : [],
      codecs: s.codecs ?? ['opus', 'PCMU', 'PCMA'],
      auto_forward_rules: s.auto_forward_rules ?? { is_enabled: false, device_protocol: 'UDP', use_address: 'server_url' },
      resident_phonebook_settings: s.resident_phonebook_settings ?? { is_enabled: false, show_all_groups: false },
    };
  }

  /** The SIP tab of the default project only speaks of the listeners this instance runs. */
  private async runningPorts(projectId: number) {
    return this.sipControl && projectId === (await this.repo.defaultProjectId()) ? this.sipControl.ports() : null;
  }

  async sip(actor: Actor): Promise<SipSettings> {
    this.assertView(actor);
    return this.sipView(await this.load(actor.projectId), await this.runningPorts(actor.projectId));
  }

  async updateSip(ctx: RequestContext, body: UpdateSipSettingsBody): Promise<SipSettings> {
    this.assertChange(ctx.actor);
    const control = (await this.runningPorts(ctx.actor.projectId)) ? this.sipControl : null;
    // Nothing heard from another instance is applied between the rebind and the save.
    return control ? control.exclusive(() => this.saveSip(ctx, body, control)) : this.saveSip(ctx, body, null);
  }

  private async saveSip(ctx: RequestContext, body: UpdateSipSettingsBody, control: SipListenerControl | null): Promise<SipSettings> {
    const running = control?.ports() ?? null;
    const current = this.sipView(await this.load(ctx.actor.projectId), running);
    // Domain forward rules are the mobile app's licensed feature: switching them on needs it (kept on
    // from before, they are saved as they are, and have no effect while it is missing: device forwards).
    if (body.auto_forward_rules?.is_enabled && !current.auto_forward_rules.is_enabled) {
      await this.opts.assertMobileFeature?.(ctx.actor, 'mobile_domain_forward_rule');
    }
    const next = { ...current, ...body };
    if (next.port === next.ws_port) throw new AppError('invalid_data', [{ field: 'ws_port', message: 'validation.unique' }]);
    // A change of ports rebinds the running listeners first (the SIP server reads the database as it
    // starts, so not inside the transaction): a port that cannot be bound refuses the whole change.
    const rebind = running && control && (next.port !== running.port || next.ws_port !== running.ws_port) ? control : null;
    await rebind?.apply({ port: next.port, ws_port: next.ws_port });
    let saved: SipSettings;
    try {
      saved = await this.change(
        ctx,
        'project_settings_sip',
        (p) => this.sipView(p, running && rebind ? { port: next.port, ws_port: next.ws_port } : running),
        async (before) => ({ set: { sip: { ...((before.settings.sip ?? {}) as StoredSip), ...body } } }),
      );
    } catch (e) {
      // Not saved: the listeners go back to the ports that are still stored.
      if (rebind && running) await rebind.apply(running).catch(() => undefined);
      throw e;
    }
    await control?.configure(saved).catch((e: unknown) => {
      throw new AppError('sip_service_start_failed', [{ field: 'rtp', message: (e as Error).message.slice(0, 200) }]);
    });
    return saved;
  }

  /** The SIP tab of the server's default project as stored (defaults where unset), for the SIP server's start. */
  async defaultSipSettings(): Promise<SipSettings> {
    const id = await this.repo.defaultProjectId();
    const p = id === null ? undefined : await this.repo.project(id);
    return this.sipView(p ?? { id: 0, name: '', description: null, settings: {} }, null);
  }

  /** A project's SIP tab and server URL, for what is sent to its devices (forwards, phonebook). */
  async sipOf(projectId: number): Promise<{ sip: SipSettings; serverUrl: string | null }> {
    const p = (await this.repo.project(projectId)) ?? { id: projectId, name: '', description: null, settings: {} };
    return { sip: this.sipView(p, await this.runningPorts(projectId)), serverUrl: this.generalView(p).server_url };
  }

  /** The listener ports stored for the server's default project, for the SIP server's start. */
  async storedSipPorts(): Promise<{ port?: number; ws_port?: number }> {
    const id = await this.repo.defaultProjectId();
    const p = id === null ? undefined : await this.repo.project(id);
    const s = (p?.settings.sip ?? {}) as StoredSip;
    return { ...(s.port ? { port: s.port } : {}), ...(s.ws_port ? { ws_port: s.ws_port } : {}) };
  }

  // ---- push server -------------------------------------------------------------------------------

  private pushView(p: StoredProject): PushSettings {
    const s = (p.settings.push_server ?? {}) as StoredPush;
    return { is_enabled: s.is_enabled ?? false, url: s.url ?? null, token: null, has_token: has(s.token) };
  }

  async push(actor: Actor): Promise<PushSettings> {
    this.assertView(actor);
    return this.pushView(await this.load(actor.projectId));
  }

  async updatePush(ctx: RequestContext, body: UpdatePushSettingsBody): Promise<PushSettings> {
    this.assertChange(ctx.actor);
    // The push server is posted to on the operator's say-so: an address inside the site is refused
    // here, and again at each delivery (the name may resolve elsewhere by then). Resolved before the
    // change's transaction, so a slow resolver holds no row lock.
    if (body.url && !this.opts.pushAllowPrivate) {
      const found = await outboundAddresses(new URL(body.url).hostname, {
        allowPrivate: false,
        ...(this.opts.resolve ? { resolve: this.opts.resolve } : {}),
      });
      if (!found.ok) throw new AppError('invalid_data', [{ field: 'url', message: found.message }]);
    }
    return this.change(
      ctx,
      'project_settings_push',
      (p) => this.pushView(p),
      async (before) => {
        const s = (before.settings.push_server ?? {}) as StoredPush;
        const url = body.url === undefined ? (s.url ?? null) : body.url;
        if (body.is_enabled && !url) throw new AppError('invalid_data', [{ field: 'url', message: 'validation.required' }]);
        return { set: { push_server: { is_enabled: body.is_enabled, url, token: secret(body.token, s.token) } } };
      },
    );
  }

  // ---- management company white-label ------------------------------------------------------------

  private whiteLabelView(p: StoredProject): WhiteLabelSettings {
    const s = (p.settings.white_label ?? {}) as StoredWhiteLabel;
    return {
      name: s.name ?? null,
      address: s.address ?? null,
      email: s.email ?? null,
      phone: s.phone ?? null,
      logo_url: s.logo ? `/api/v0/files/${s.logo}` : null,
      app_store_url: s.app_store_url ?? null,
      google_play_url: s.google_play_url ?? null,
    };
  }

  async whiteLabel(actor: Actor): Promise<WhiteLabelSettings> {
    this.assertView(actor, 'can_view_management_company_info');
    return this.whiteLabelView(await this.load(actor.projectId));
  }

  async updateWhiteLabel(ctx: RequestContext, body: UpdateWhiteLabelBody): Promise<WhiteLabelSettings> {
    this.assertChange(ctx.actor);
    return this.change(
      ctx,
      'project_settings_white_label',
      (p) => this.whiteLabelView(p),
      async (before) => {
        const s = (before.settings.white_label ?? {}) as StoredWhiteLabel;
        const next: StoredWhiteLabel = { ...s };
        for (const [k, v] of Object.entries(body) as [keyof UpdateWhiteLabelBody, string | null | undefined][]) {
          if (v !== undefined) next[k] = v === '' ? null : v;
        }
        return { set: { white_label: next } };
      },
    );
  }

  /** Stores the logo (an image, at most WHITE_LABEL_LOGO_MAX_BYTES); the previous one goes. */
  async setLogo(ctx: RequestContext, image: Buffer): Promise<WhiteLabelSettings> {
    this.assertChange(ctx.actor);
    if (image.length > WHITE_LABEL_LOGO_MAX_BYTES) {
      throw new AppError('payload_too_large', [
        { field: 'logo', message: 'validation.file_size', params: { max: WHITE_LABEL_LOGO_MAX_BYTES } },
      ]);
    }
    const { ext, data } = await storableImage(image);
    const key = await this.files.put('logos', ext, data);
    try {
      return await this.replaceLogo(ctx, key);
    } catch (e) {
      await this.files.remove(key);
      throw e;
    }
  }

  async removeLogo(ctx: RequestContext): Promise<WhiteLabelSettings> {
    this.assertChange(ctx.actor);
    return this.replaceLogo(ctx, null);
  }

  /** Stores `key` (or none) as the logo, then removes the file it replaces. */
  private async replaceLogo(ctx: RequestContext, key: string | null): Promise<WhiteLabelSettings> {
    let old: string | null = null;
    const v = await this.change(
      ctx,
      'project_settings_white_label',
      (p) => this.whiteLabelView(p),
      async (before) => {
        const s = (before.settings.white_label ?? {}) as StoredWhiteLabel;
        old = s.logo ?? null;
        return { set: { white_label: { ...s, logo: key } } };
      },
    );
    await this.files.remove(old);
    return v;
  }

  // ---- terms and conditions ----------------------------------------------------------------------

  private termsView(p: StoredProject): TermsSettings {
    const s = (p.settings.terms ?? {}) as StoredTerms;
    const one = (l: Locale) => (has(s[l]) ? { html: s[l], is_default: false } : { html: DEFAULT_TERMS[l], is_default: true });
    return { en: one('en'), ru: one('ru') };
  }

  async terms(actor: Actor): Promise<TermsSettings> {
    this.assertView(actor);
    return this.termsView(await this.load(actor.projectId));
  }

  /**
   * Stores the operator's text per language, sanitized here so the public page never serves script or
   * styles someone typed in; a text that is empty once sanitized (or null) returns to the built-in one.
   */
  async updateTerms(ctx: RequestContext, body: UpdateTermsSettingsBody): Promise<TermsSettings> {
    this.assertChange(ctx.actor);
    return this.change(
      ctx,
      'project_settings_terms',
      (p) => this.termsView(p),
      async (before) => {
        const next: StoredTerms = { ...((before.settings.terms ?? {}) as StoredTerms) };
        for (const l of ['en', 'ru'] as const) {
          const v = body[l];
          if (v === undefined) continue;
          const clean = v === null ? '' : safeHtml(v);
          if (clean === '') delete next[l];
          else next[l] = clean;
        }
        return { set: { terms: next } };
      },
    );
  }

  /** The terms and conditions page in `locale`: the default project's text (public pages follow it), or the built-in one. */
  async publicTerms(locale: Locale): Promise<string> {
    const id = await this.repo.defaultProjectId();
    const p = id === null ? undefined : await this.repo.project(id);
    return p ? this.termsView(p)[locale].html : DEFAULT_TERMS[locale];
  }

  // ---- MQTT broker -------------------------------------------------------------------------------

  private brokerView(p: StoredProject): BrokerSettings {
    const s = (p.settings.broker ?? {}) as StoredBroker;
    return {
      use_user_certs: s.use_user_certs ?? false,
      certificate: s.certificate ? describeCertificate(s.certificate) : null,
      has_key: has(s.key),
    };
  }

  async broker(actor: Actor): Promise<BrokerSettings> {
    this.assertView(actor);
    return this.brokerView(await this.load(actor.projectId));
  }

  /** Own certificates of the broker: a PEM certificate and its key, uploaded together and checked as a pair. */
  async updateBroker(ctx: RequestContext, body: { use_user_certs: boolean; certfile?: string; keyfile?: string }): Promise<BrokerSettings> {
    this.assertChange(ctx.actor);
    if ((body.certfile === undefined) !== (body.keyfile === undefined)) {
      const field = body.certfile === undefined ? 'certfile' : 'keyfile';
      throw new AppError('broker_certificates_invalid', [{ field, message: 'validation.required' }]);
    }
    // Read before the change's transaction (PGlite has one connection: a read beside it would wait for it).
    const isDefault = ctx.actor.projectId === (await this.repo.defaultProjectId());
    let told = '';
    const view = await this.change(
      ctx,
      'project_settings_broker',
      (p) => this.brokerView(p),
      async (before) => {
        const s = (before.settings.broker ?? {}) as StoredBroker;
        const certificate = body.certfile ?? s.certificate ?? null;
        const key = body.keyfile ?? s.key ?? null;
        if (body.use_user_certs && (!certificate || !key)) {
          throw new AppError('broker_certificates_invalid', [{ field: 'certfile', message: 'validation.required' }]);
        }
        if (certificate && key && body.certfile !== undefined) {
          const problem = certificatePairProblem(certificate, key);
          if (problem) throw new AppError('broker_certificates_invalid', [problem]);
        }
        // The embedded broker follows the server's default project (as the SIP listeners do): what
        // is stored is applied before the change commits, so a listener that cannot open refuses it.
        const control = this.brokerControl;
        const changed =
          body.use_user_certs !== (s.use_user_certs ?? false) || certificate !== (s.certificate ?? null) || key !== (s.key ?? null);
        if (control && changed && isDefault) {
          try {
            await control.applyTls(body.use_user_certs && certificate && key ? { cert: certificate, key } : null);
          } catch (e) {
            throw new AppError('broker_settings_failed', [{ field: 'certfile', message: (e as Error).message.slice(0, 200) }]);
          }
        }
        told = JSON.stringify(this.brokerPayload(before));
        return { set: { broker: { use_user_certs: body.use_user_certs, certificate, key } } };
      },
    );
    // Devices are told when what they are told changes (the key alone is not theirs to know).
    await this.tellDevicesOfBroker(ctx, told);
    return view;
  }

  /**
   * What devices are told of the broker (a broker_settings task, device protocol): where plain MQTT
   * listens and, with the own certificate switched on, where MQTT over TLS listens and the
   * certificate to trust. Null when this server cannot say where its broker is.
   */
  private brokerPayload(p: StoredProject): Record<string, unknown> | null {
    const where = this.opts.deviceBroker?.((p.settings.server_url as string | undefined) ?? null);
    if (!where) return null;
    const s = (p.settings.broker ?? {}) as StoredBroker;
    const tls =
      s.use_user_certs && s.certificate && where.tlsUrl
        ? { url: where.tlsUrl, certificate: s.certificate, fingerprint: new X509Certificate(s.certificate).fingerprint256 }
        : null;
    return { url: where.url, tls };
  }

  /** POST /settings/broker/send: the broker settings to every initialised mqtt device of the project, again. */
  async sendBroker(ctx: RequestContext): Promise<BrokerSendResult> {
    this.assertChange(ctx.actor);
    const payload = this.brokerPayload(await this.load(ctx.actor.projectId));
    if (!payload || !this.opts.sendBrokerSettings) {
      throw new AppError('broker_settings_failed', [{ field: 'type', message: 'the broker is not run by this server' }]);
    }
    return { devices: await this.opts.sendBrokerSettings(ctx, payload) };
  }

  /** The own certificate and key of the embedded broker (the default project's, when switched on), for its start. */
  async brokerTls(): Promise<{ cert: string; key: string } | null> {
    const id = await this.repo.defaultProjectId();
    const p = id === null ? undefined : await this.repo.project(id);
    const s = (p?.settings.broker ?? {}) as StoredBroker;
    return s.use_user_certs && s.certificate && s.key ? { cert: s.certificate, key: s.key } : null;
  }

  async brokerStatus(actor: Actor): Promise<BrokerStatus> {
    this.assertView(actor);
    const mode = this.opts.brokerMode();
    const local = this.brokerControl?.status();
    return {
      mode,
      is_running: local?.is_running ?? (mode === 'external' ? this.opts.brokerConnected() === true : false),
      connected: this.opts.brokerConnected(),
      started_at: local?.started_at ?? null,
      tls_port: local?.tls_port ?? null,
    };
  }

  async restartBroker(ctx: RequestContext, type: 'broker'): Promise<BrokerStatus> {
    this.assertChange(ctx.actor);
    if (!this.brokerControl)
      throw new AppError('broker_settings_failed', [{ field: 'type', message: 'the broker is not run by this server' }]);
    try {
      await this.brokerControl.restart();
    } catch (e) {
      throw new AppError('broker_settings_failed', [{ field: 'type', message: (e as Error).message.slice(0, 200) }]);
    }
    await this.db.transaction((tx) =>
      recordAudit(tx, ctx, { entity: 'mqtt_broker', entityId: ctx.actor.projectId, action: 'restart', after: { type } }),
    );
    return this.brokerStatus(ctx.actor);
  }

  // ---- what other areas read -------------------------------------------------------------------------

  /** The management company as a mobile app licensed for white label shows it (modules/mobile-clients). */
  async mobileWhiteLabel(projectId: number): Promise<MobileWhiteLabel> {
    const p = (await this.repo.project(projectId)) ?? { id: projectId, name: '', description: null, settings: {} };
    const { name, address, email, phone, logo_url } = this.whiteLabelView(p);
    return { name, address, email, phone, logo_url };
  }

  /** The settings the console reads before and after sign-in (GET /frontend/server/settings), of a project or the default one. */
  async serverView(projectId: number | null) {
    const id = projectId ?? (await this.repo.defaultProjectId());
    const p = id === null ? undefined : await this.repo.project(id);
    const empty: StoredProject = { id: 0, name: '', description: null, settings: {} };
    const g = this.generalView(p ?? empty);
    const sip = this.sipView(p ?? empty, null);
    const push = this.pushView(p ?? empty);
    const brand = this.whiteLabelView(p ?? empty);
    return {
      white_label: { name: brand.name, logo_url: brand.logo_url },
      mobile_app: { app_store_url: brand.app_store_url, google_play_url: brand.google_play_url },
      registration: { recovery: g.can_user_recovery_password, by_token: g.can_user_register_by_token, self: g.can_user_register_by_self },
      locale: g.locale,
      time_zone: g.time_zone,
      server_url: g.server_url,
      auto_forward_rules: sip.auto_forward_rules,
      server_ip: sip.server.external_ip,
      internal_server_ip: sip.server.internal_ip,
      push_server: push.is_enabled ? push.url : null,
    };
  }

  /**
   * Where a device notice of `kind` goes (general settings: offline and task-failed device
   * notifications): the administrator e-mail while its switch is on, else null.
   */
  async deviceNoticeRecipient(
    projectId: number,
    kind: 'device_offline' | 'device_task_failed',
  ): Promise<{ to: string; locale: Locale; project: string; timeZone: string } | null> {
    const p = await this.repo.project(projectId);
    if (!p) return null;
    const g = this.generalView(p);
    const on = kind === 'device_offline' ? g.notify_about_offline_device : g.notify_about_device_task_failed;
    if (!on || !g.admin_email) return null;
    return { to: g.admin_email, locale: g.locale, project: p.name, timeZone: g.time_zone };
  }

  /** The project's time zone (general settings), which exports and device notices write times in. */
  async timeZoneOf(projectId: number): Promise<string> {
    const p = await this.repo.project(projectId);
    return (p?.settings.time_zone as string | undefined) ?? GENERAL_SETTINGS_DEFAULTS.time_zone;
  }

  /** The project's guest identifier limits (null: none), which every group's own limits only tighten. */
  async guestLimits(projectId: number): Promise<GeneralSettings['guest_identifier_limits']> {
    const p = await this.repo.project(projectId);
    return this.generalView(p ?? { id: projectId, name: '', description: null, settings: {} }).guest_identifier_limits;
  }
}
