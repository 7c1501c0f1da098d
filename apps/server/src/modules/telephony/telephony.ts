import { randomUUID } from 'node:crypto';
import type { AppInstance } from '../../app.js';
import { CallRecorder } from './call-recorder.js';
import { CallsService } from './calls.service.js';
import { DeviceForwardsService } from './device-forwards.js';
import { ForwardRulesService, serverHosts } from './forward-rules.service.js';
import { TelephonyDirectory } from './sip-directory.js';
import { SipLicense } from './sip-license.js';
import { SipNumbersService } from './sip-numbers.service.js';

export interface Telephony {
  numbers: SipNumbersService;
  forwardRules: ForwardRulesService;
  calls: CallsService;
  /** The SIP server's SipDirectory. */
  directory: TelephonyDirectory;
  /** The SIP server's SipCallObserver. */
  recorder: CallRecorder;
  /** Door panels' forwards: the numbers they ring and where calls go on. */
  deviceForwards: DeviceForwardsService;
}

function hostOfUrl(url: string): string | null {
  try {
    return new URL(/^[a-z]+:\/\//i.test(url) ? url : `http://${url}`).hostname || null;
  } catch {
    return null;
  }
}

// Keyed by the shared services: a plugin's encapsulated instance is another object than the app.
const built = new WeakMap<object, Telephony>();

/**
 * The telephony services of one app, built once from its shared decorations. main.ts hands
 * `directory` and `recorder` to the SIP server and the server to `calls.attachSip(...)`.
 */
export function telephonyOf(app: AppInstance): Telephony {
  const known = built.get(app.services);
  if (known) return known;
  const db = app.database.db;
  const license = new SipLicense(app.services.licenses);
  const numbers = new SipNumbersService(db, license);
  const secret = () => (app.config.jwtSecret ? Promise.resolve(app.config.jwtSecret) : app.services.projects.jwtSecret());
  const calls = new CallsService(db, license, numbers, app.services.devices, secret, app.config.publicUrl, (...a) =>
    app.services.notifications.notify(...a),
  );
  const recorder = new CallRecorder(db, {
    // webhooks (issue 14) hear a call that ended; never waited for.
    publish: (...a) => {
      void app.services.webhooks.onPublish(...a);
      return app.realtime.publish(...a);
    },
    openLock: async (deviceId, call) => {
      // A mobile app's '#' is a remote opening: only with it licensed to the app's user (modules/mobile-clients).
      if (!(await app.services.mobileClients.remoteOpenAllowed(call.id, call.from))) {
        app.log.info({ call: call.id, from: call.from }, 'door not opened: remote opening is not licensed to this mobile app');
        return;
      }
      await calls.openLock({ actor: null, ip: 'sip', requestId: `sip-${call.id}-${randomUUID().slice(0, 8)}` }, deviceId);
    },
    log: app.log,
  });
  const t: Telephony = {
    numbers,
    forwardRules: new ForwardRulesService(db, license, serverHosts(app.config.publicUrl, app.config.sip.publicHost), () => {
      // The ports it listens on while it runs, and those it is configured for (it may start later).
      const { sip } = app.config;
      const running = [app.sipWs.udp, app.sipWs.port, app.sipWs.tls];
      return [sip.port, sip.wsPort, sip.tlsPort ?? 5061, ...running].filter((p): p is number => typeof p === 'number' && p > 0);
    }),
    calls,
    directory: new TelephonyDirectory(db, undefined, app.readCache),
    recorder,
    deviceForwards: new DeviceForwardsService(db, app.services.devices, async (projectId) => {
      // The project's SIP tab: the address devices dial (auto forward rules' use_address: the server
      // URL's host, the external or the internal IP), their transport and the resident phonebook.
      const { sip, serverUrl } = await app.services.projectSettings.sipOf(projectId);
      const rules = sip.auto_forward_rules;
      const fallback = app.config.sip.publicHost;
      let host = fallback;
      if (rules.use_address === 'external_ip') host = sip.server.external_ip ?? fallback;
      else if (rules.use_address === 'internal_ip') host = sip.server.internal_ip ?? fallback;
      else if (serverUrl) host = hostOfUrl(serverUrl) ?? fallback;
      // Devices told TLS dial the SIP over TLS port (5061 unless SIP_TLS_PORT says otherwise).
      const tls = rules.device_protocol === 'TLS';
      const port = tls ? (app.sipWs.tls ?? app.config.sip.tlsPort ?? 5061) : (app.sipWs.udp ?? sip.port);
      return {
        address: port === (tls ? 5061 : 5060) || !port ? host : `${host}:${port}`,
        protocol: rules.device_protocol,
        // Domain forward rules take effect only while the project's licence includes them for the mobile app.
        autoForwardRules:
          rules.is_enabled && (await app.services.licenseGuard.mobileFeatures(projectId)).includes('mobile_domain_forward_rule'),
        phonebook: sip.resident_phonebook_settings,
      };
    }),
  };
  built.set(app.services, t);
  return t;
}
