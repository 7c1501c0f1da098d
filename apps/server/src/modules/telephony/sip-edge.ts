import { randomBytes } from 'node:crypto';
import type { SipEdgeEvent, SipEdgeRoute, SipEdgeRouteRequest } from '@atrium/contract';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { type Db, queryRows } from '../../core/db/client.js';
import { baseNumber, formatUri, parseUri } from '../../sip/address.js';
import { dtmfDigit, outcomeOf, sdpHolds } from '../../sip/call.js';
import { SIP_HEADERS, type SipCallObserver, type SipDirectory, type SipStage } from '../../sip/types.js';

/**
 * Atrium behind Kamailio (SIP_EDGE=kamailio; deploy/kamailio): Kamailio keeps registrations,
 * digest, NAT and WebSocket, and the calls themselves (record-routed, so any Atrium instance may
 * die while they ring or talk). Atrium decides where a call goes with the same directory its own
 * SIP server asks (call rules, forward modes and groups, interception, trunks) and records what
 * Kamailio reports with the same call recorder, so call records, history and the concierge's
 * realtime events are those of the embedded server.
 */

/**
 * Kamailio's tables in Atrium's database, named apart from Atrium's: its schema version table, the
 * registrations (usrloc, db_mode 3: every Kamailio reads and writes them there; the columns are
 * Kamailio 5.6's `location`, version 9), and the credentials auth_db reads, a view over the numbers.
 */
const EDGE_SCHEMA = [
  sql`CREATE TABLE IF NOT EXISTS kamailio_version (
    id SERIAL PRIMARY KEY NOT NULL,
    table_name VARCHAR(32) NOT NULL,
    table_version INTEGER DEFAULT 0 NOT NULL,
    CONSTRAINT kamailio_version_table_name_idx UNIQUE (table_name))`,
  sql`CREATE TABLE IF NOT EXISTS kamailio_location (
    id SERIAL PRIMARY KEY NOT NULL,
    ruid VARCHAR(64) DEFAULT '' NOT NULL,
    username VARCHAR(64) DEFAULT '' NOT NULL,
    domain VARCHAR(64) DEFAULT NULL,
    contact VARCHAR(512) DEFAULT '' NOT NULL,
    received VARCHAR(128) DEFAULT NULL,
    path VARCHAR(512) DEFAULT NULL,
    expires TIMESTAMP WITHOUT TIME ZONE DEFAULT '2030-05-28 21:32:15' NOT NULL,
    q REAL DEFAULT 1.0 NOT NULL,
    callid VARCHAR(255) DEFAULT 'Default-Call-ID' NOT NULL,
    cseq INTEGER DEFAULT 1 NOT NULL,
    last_modified TIMESTAMP WITHOUT TIME ZONE DEFAULT '2000-01-01 00:00:01' NOT NULL,
    flags INTEGER DEFAULT 0 NOT NULL,
    cflags INTEGER DEFAULT 0 NOT NULL,
    user_agent VARCHAR(255) DEFAULT '' NOT NULL,
    socket VARCHAR(64) DEFAULT NULL,
    methods INTEGER DEFAULT NULL,
    instance VARCHAR(255) DEFAULT NULL,
    reg_id INTEGER DEFAULT 0 NOT NULL,
    server_id INTEGER DEFAULT 0 NOT NULL,
    connection_id INTEGER DEFAULT 0 NOT NULL,
    keepalive INTEGER DEFAULT 0 NOT NULL,
    partition INTEGER DEFAULT 0 NOT NULL,
    CONSTRAINT kamailio_location_ruid_idx UNIQUE (ruid))`,
  sql`CREATE INDEX IF NOT EXISTS kamailio_location_account_contact_idx ON kamailio_location (username, domain, contact)`,
  sql`CREATE INDEX IF NOT EXISTS kamailio_location_expires_idx ON kamailio_location (expires)`,
  sql`CREATE INDEX IF NOT EXISTS kamailio_location_connection_idx ON kamailio_location (server_id, connection_id)`,
  sql`INSERT INTO kamailio_version (table_name, table_version) VALUES ('version', 1), ('kamailio_location', 9)
    ON CONFLICT (table_name) DO NOTHING`,
  // Held calls at the edge: the dialog as the holder's re-INVITE named it (its tags, and the other
  // party's target), and the resumes under way: the new dialog's Call-ID, the one it replaces, and
  // whether that one's end was reported while the record followed the new one (sip-edge.ts, resume).
  sql`CREATE TABLE IF NOT EXISTS atrium_edge_holds (
    call_id TEXT PRIMARY KEY,
    holder_tag TEXT NOT NULL,
    other_tag TEXT NOT NULL,
    other_target TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
  sql`CREATE TABLE IF NOT EXISTS atrium_edge_resumes (
    call_id TEXT PRIMARY KEY,
    replaced TEXT NOT NULL,
    replaced_ended BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
  // Plain-text passwords, as Atrium keeps them for digest: auth_db hashes them per request (calculate_ha1).
  sql`CREATE OR REPLACE VIEW kamailio_subscriber AS
    SELECT id, number AS username, password FROM sip_numbers WHERE is_active AND NOT is_reserved`,
];

/** Two instances starting at once must not race on the view: one creates, the other waits. */
const EDGE_SCHEMA_LOCK = 727_028;

export async function ensureEdgeSchema(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${EDGE_SCHEMA_LOCK})`);
    for (const statement of EDGE_SCHEMA) await tx.execute(statement);
  });
}

/** Display names go into a quoted SIP header Kamailio writes as it is. */
const headerSafe = (name: string) => name.replace(/["\\\r\n]/g, '').slice(0, 100);

export class SipEdge {
  constructor(
    private readonly db: Db,
    private readonly directory: SipDirectory,
    private readonly recorder: SipCallObserver & { flush(): Promise<void> },
    private readonly rpc: string[] = [],
  ) {}

  /**
   * The console's "stop call" at the edge: the BYE each phone would send, one to each leg, written
   * here from the dialog of the Kamailio that holds the call (found by its Call-ID with
   * `dlg.dlg_list` over each configured JSON-RPC address) and handed to that Kamailio's HTTP
   * listener (`/sip-bye`), which sends it to its own SIP socket. Each BYE then passes Kamailio's
   * in-dialog route as if a phone had sent it: the dialog module ends the dialog (and reports its
   * end), rtpengine lets the media go, and the other BYE is relayed whatever the dialog's state by
   * then. Kamailio's own `dlg.end_dlg` is not used: it sends the second BYE only while the dialog is
   * still confirmed, and the first leg's 200, handled in another process in between, made it refuse
   * (docs/decisions.md); `tm.t_uac_start` cannot be used either, as it adds a From tag of its own.
   * A call still ringing is cancelled as the embedded proxy cancels it: Kamailio's `tm.cancel` sends
   * CANCEL to every branch, the caller gets their 487, and the call is marked first (the
   * `atrium_stop` table) so that its failure route ends it instead of ringing the next stage.
   * The end is recorded here at once, as the embedded server records its own BYE or CANCEL;
   * Kamailio's report of the end finds it recorded. False when no Kamailio holds the call.
   */
  async endCall(callId: string): Promise<boolean> {
    let ended: 200 | 487 | null = null;
    for (const url of this.rpc) {
      const found = await jsonRpc(url, 'dlg.dlg_list', [callId]).catch(() => null);
      const dialogs = (Array.isArray(found) ? found : found ? [found] : []) as unknown[];
      for (const d of dialogs) {
        const byes = edgeByes(d);
        if (byes) {
          const sent = await Promise.all(byes.message.map((m) => sendBye(url, byes.nextHop, m)));
          if (sent.some(Boolean)) ended = 200;
          continue;
        }
        const cseq = ringingCseq(d);
        if (cseq !== null && (await cancelRinging(url, callId, cseq))) ended ??= 487;
      }
      if (ended) break;
    }
    if (ended) await this.event({ type: 'ended', callId, status: ended, unreachable: false });
    return ended !== null;
  }

  /**
   * Where an INVITE goes: the directory's route as Kamailio rings it. The call's record is written
   * before the answer, so whichever instance hears what comes next finds it.
   */
  async route(req: SipEdgeRouteRequest): Promise<SipEdgeRoute> {
    if (req.resume !== undefined) return this.resume(req, req.resume.trim());
    let trunkId: number | null = null;
    if (!req.authenticated) {
      // Browsers are never a trunk; a trunk's peer is trusted by its transport, address and port.
      const ws = req.source.transport === 'ws' || req.source.transport === 'wss';
      trunkId = ws ? null : ((await this.directory.trunkPeer?.(req.source)) ?? null);
      if (trunkId === null) return { action: 'challenge' };
    }
    const caller = req.caller || 'anonymous';
    const headers: Record<string, string> = {};
    if (req.sos !== undefined) headers[SIP_HEADERS.sos.toLowerCase()] = req.sos;
    const route = await this.directory.route({
      caller,
      callee: req.callee,
      headers,
      callId: req.callId,
      ...(trunkId !== null ? { trunkId } : {}),
    });
    const speechId = req.speechId || req.callId;
    const sos = route.kind === 'fork' && route.sos;
    const at = Date.now();
    // Kamailio asks again on another instance when an answer did not reach it: the call is recorded once.
    const retried = (await this.recordStatus(req.callId)) !== null;
    if (!retried) this.recorder.onCallEvent({ type: 'created', callId: req.callId, caller, callee: req.callee, sos, speechId, at });
    const stages = route.kind === 'fork' ? route.stages.map(edgeStage).filter((s) => s.numbers.length + s.uris.length > 0) : [];
    if (route.kind === 'reject' || stages.length === 0) {
      const status = route.kind === 'reject' ? route.status : 480;
      const reason = route.kind === 'reject' ? route.reason : 'Temporarily Unavailable';
      // Nothing to ring at all is a failure, not a call nobody picked up.
      const outcome = route.kind === 'reject' ? outcomeOf(status) : 'failed';
      if (!retried) this.recorder.onCallEvent({ type: 'ended', callId: req.callId, outcome, status, at });
      await this.recorder.flush();
      return { action: 'reject', status, reason };
    }
    const callerName = trunkId === null ? headerSafe((await this.directory.callerName?.(caller)) ?? caller) : '';
    await this.recorder.flush();
    const flat: Record<string, string> = {};
    stages.forEach((stage, i) => {
      flat[`stage${i}_reason`] = stage.reason;
      flat[`stage${i}_timeout`] = String(stage.timeout);
      flat[`stage${i}_numbers`] = stage.numbers.join(',');
      flat[`stage${i}_uris`] = stage.uris.join(' ');
      if (stage.trunk) {
        flat[`stage${i}_trunk_login`] = stage.trunk.login;
        flat[`stage${i}_trunk_password`] = stage.trunk.password;
      }
    });
    return { action: 'fork', callee: route.callee, sos, speechId, callerName, stages: stages.length, ...flat };
  }

  /**
   * A held call taken back from a new page: the INVITE carries X-Resume-Call with the call's speech
   * id and is authenticated as the number that answered it (another number: 403; a call not held:
   * 404), as the embedded server's parked calls are. A proxy cannot re-INVITE the other party on a
   * page's behalf, so the other party's phone is asked to swap dialogs itself: the INVITE goes to it
   * with `Replaces` naming the held dialog (RFC 3891), as the holder's accepted re-INVITE described
   * it (its tags and target, kept when the hold was reported; Kamailio is not asked here, as it
   * waits on this answer). Nothing of this lives in an instance: the dialog is Kamailio's, the
   * record, the hold and the swap under way are in the database, so the instance that answers the
   * resume need not be the one that heard the hold. The record follows the new dialog from here
   * (its reports carry the new Call-ID; the old dialog's end, once the phone drops it, finds no
   * record), and goes back to the old one if the phone refuses the swap.
   */
  private async resume(req: SipEdgeRouteRequest, speechId: string): Promise<SipEdgeRoute> {
    if (!req.authenticated) return { action: 'challenge' };
    const notHeld = { action: 'reject', status: 404, reason: 'Not Found' } as const;
    const [call] = await queryRows<{ sip_call_id: string; caller: string; answered_by: string | null; status: string }>(
      this.db,
      sql`SELECT sip_call_id, caller, answered_by, status FROM call_records WHERE id = ${speechId}`,
    );
    if (call?.status !== 'answered_waiting') return notHeld;
    if (call.answered_by !== baseNumber(req.caller)) return { action: 'reject', status: 403, reason: 'Forbidden' };
    // Asked again (Kamailio's answer from another instance was lost): the record already follows this INVITE.
    const [pending] = await queryRows<{ replaced: string }>(
      this.db,
      sql`SELECT replaced FROM atrium_edge_resumes WHERE call_id = ${req.callId}`,
    );
    const held = call.sip_call_id === req.callId && pending ? pending.replaced : call.sip_call_id;
    const [hold] = await queryRows<{ holder_tag: string; other_tag: string; other_target: string }>(
      this.db,
      sql`SELECT holder_tag, other_tag, other_target FROM atrium_edge_holds WHERE call_id = ${held}`,
    );
    // (a Call-ID or tag that would break the header's own syntax is not one Atrium can name)
    if (!hold || [held, hold.holder_tag, hold.other_tag].some((v) => /[;,\s]/.test(v))) return notHeld;
    if (call.sip_call_id !== req.callId) {
      const moved = await this.db.transaction(async (tx) => {
        await tx.execute(sql`DELETE FROM atrium_edge_resumes WHERE created_at < now() - interval '1 day'`);
        const rows = await queryRows<{ id: string }>(
          tx,
          sql`UPDATE call_records SET sip_call_id = ${req.callId}
            WHERE id = ${speechId} AND sip_call_id = ${held} AND status = 'answered_waiting' RETURNING id`,
        );
        if (rows.length === 0) return false;
        await tx.execute(sql`INSERT INTO atrium_edge_resumes (call_id, replaced) VALUES (${req.callId}, ${held})
          ON CONFLICT (call_id) DO UPDATE SET replaced = EXCLUDED.replaced, replaced_ended = FALSE, created_at = now()`);
        return true;
      });
      if (!moved) return notHeld;
    }
    // Replaces names the dialog as the phone receiving it sees it: its own tag is the to-tag.
    const replaces = `${held};to-tag=${hold.other_tag};from-tag=${hold.holder_tag}`;
    return { action: 'replace', number: call.caller, uri: oneLine(hold.other_target), replaces, speechId };
  }

  /** The holder's accepted re-INVITE (its tags and target): what a resume's Replaces will name. */
  private async keepHold(e: Extract<SipEdgeEvent, { type: 'reoffer' }>): Promise<void> {
    if (!e.fromTag || !e.toTag || !e.target) return;
    await this.db.execute(sql`INSERT INTO atrium_edge_holds (call_id, holder_tag, other_tag, other_target)
      VALUES (${e.callId}, ${e.fromTag}, ${e.toTag}, ${e.target})
      ON CONFLICT (call_id) DO UPDATE SET holder_tag = EXCLUDED.holder_tag, other_tag = EXCLUDED.other_tag,
        other_target = EXCLUDED.other_target, created_at = now()`);
  }

  /** The other party took the resume's INVITE: the held call is answered again, on its new dialog. */
  private async resumed(callId: string, at: number): Promise<void> {
    const [call] = await queryRows<{ answered_by: string | null }>(
      this.db,
      sql`SELECT answered_by FROM call_records WHERE sip_call_id = ${callId} AND status = 'answered_waiting'`,
    );
    if (call?.answered_by) this.recorder.onCallEvent({ type: 'resumed', callId, by: call.answered_by, at });
  }

  /**
   * The other party refused the resume's INVITE: the record goes back to the held dialog, and is
   * ended now if that dialog's end came meanwhile (while the record followed the new INVITE).
   */
  private async resumeFailed(callId: string, at: number): Promise<void> {
    const [back] = await queryRows<{ replaced: string; replaced_ended: boolean }>(
      this.db,
      sql`UPDATE call_records c SET sip_call_id = r.replaced FROM atrium_edge_resumes r
        WHERE r.call_id = ${callId} AND c.sip_call_id = ${callId} AND c.status <> 'destroyed'
        RETURNING r.replaced, r.replaced_ended`,
    );
    if (back?.replaced_ended) this.recorder.onCallEvent({ type: 'ended', callId: back.replaced, outcome: 'answered', status: 200, at });
  }

  /** What Kamailio reports of a routed call, written before the answer (Kamailio retries another instance on failure). */
  async event(e: SipEdgeEvent): Promise<void> {
    const at = Date.now();
    if (e.type === 'resumed') await this.resumed(e.callId, at);
    if (e.type === 'resume_failed') await this.resumeFailed(e.callId, at);
    if (e.type === 'ringing') this.recorder.onCallEvent({ type: 'ringing', callId: e.callId, numbers: e.numbers, at });
    if (e.type === 'forwarded')
      this.recorder.onCallEvent({ type: 'forwarded', callId: e.callId, reason: e.reason, numbers: e.numbers, at });
    if (e.type === 'answered') this.recorder.onCallEvent({ type: 'answered', callId: e.callId, by: await this.answerer(e), at });
    if (e.type === 'info' || e.type === 'reoffer') {
      const party = await this.party(e.callId, e.from);
      const body = Buffer.from(e.body, 'hex');
      if (party && e.type === 'info') {
        const digit = dtmfDigit(e.contentType, body);
        if (digit) this.recorder.onCallEvent({ type: 'dtmf', callId: e.callId, from: party, digit, at });
      }
      const holds = e.type === 'reoffer' ? sdpHolds(e.contentType, body) : null;
      if (party && holds !== null) this.recorder.onCallEvent({ type: holds ? 'held' : 'resumed', callId: e.callId, by: party, at });
      if (e.type === 'reoffer' && party && holds) await this.keepHold(e);
    }
    if (e.type === 'ended') await this.db.execute(sql`DELETE FROM atrium_edge_holds WHERE call_id = ${e.callId}`);
    const status = e.type === 'ended' ? await this.recordStatus(e.callId) : null;
    // A held dialog a resume replaces ends with no record left on it: noted, in case the swap fails.
    if (e.type === 'ended' && status === null)
      await this.db.execute(sql`UPDATE atrium_edge_resumes SET replaced_ended = TRUE WHERE replaced = ${e.callId}`);
    // An end reported again (its answer lost on the way back) has its history row already.
    if (e.type === 'ended' && status !== 'destroyed') {
      // Unreachable (no contact of the last stage could be rung) is a failure, not a call nobody answered.
      const outcome = e.unreachable ? 'failed' : outcomeOf(e.status);
      this.recorder.onCallEvent({ type: 'ended', callId: e.callId, outcome, status: e.status, at });
    }
    await this.recorder.flush();
  }

  /**
   * Which party of an answered call sent an in-dialog request: the caller when its From user is the
   * caller's number, else the number that answered (whose requests carry the dialled number, which a
   * forward may have made another).
   */
  private async party(callId: string, from: string): Promise<string | null> {
    const [call] = await queryRows<{ caller: string; answered_by: string | null }>(
      this.db,
      sql`SELECT caller, answered_by FROM call_records WHERE sip_call_id = ${callId}`,
    );
    if (!call) return null;
    return from === call.caller ? call.caller : call.answered_by;
  }

  private async recordStatus(callId: string): Promise<string | null> {
    const [row] = await queryRows<{ status: string }>(this.db, sql`SELECT status FROM call_records WHERE sip_call_id = ${callId}`);
    return row?.status ?? null;
  }

  /** The number whose contact answered: its registration's, else the number the call was for. */
  private async answerer(e: { callId: string; ruid: string; contact: string }): Promise<string> {
    const [row] = await queryRows<{ username: string }>(
      this.db,
      sql`SELECT username FROM kamailio_location WHERE ruid = ${e.ruid} OR contact = ${e.contact}
        ORDER BY (ruid = ${e.ruid}) DESC LIMIT 1`,
    );
    if (row) return row.username;
    const [call] = await queryRows<{ callee: string }>(this.db, sql`SELECT callee FROM call_records WHERE sip_call_id = ${e.callId}`);
    return call?.callee ?? '';
  }
}

/** A BYE handed to Kamailio's HTTP listener beside its JSON-RPC, sent from there to its own SIP socket `nextHop`. */
async function sendBye(rpcUrl: string, nextHop: string, message: string): Promise<boolean> {
  const res = await fetch(new URL('/sip-bye', rpcUrl), {
    method: 'POST',
    headers: { 'content-type': 'message/sip', 'x-next-hop': nextHop },
    body: message,
    signal: AbortSignal.timeout(3000),
  }).catch(() => null);
  return res?.status === 204;
}

/**
 * Cancels the branches of a ringing call's INVITE transaction (Call-ID and the caller's CSeq),
 * marked first as stopped by the console (kamailio.cfg's `atrium_stop`); false when Kamailio holds
 * no such transaction (answered or ended meanwhile).
 */
async function cancelRinging(url: string, callId: string, cseq: number): Promise<boolean> {
  const marked = await jsonRpc(url, 'htable.seti', ['atrium_stop', callId, 1]).then(
    () => true,
    () => false,
  );
  if (!marked) return false;
  return jsonRpc(url, 'tm.cancel', [callId, String(cseq)]).then(
    () => true,
    () => false,
  );
}

/** One JSON-RPC 2.0 call to Kamailio's jsonrpcs over HTTP: its result, or a rejection with its error. */
async function jsonRpc(url: string, method: string, params: unknown[]): Promise<unknown> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', method, params, id: 1 }),
    signal: AbortSignal.timeout(3000),
  });
  const body = (await res.json()) as { result?: unknown; error?: { message?: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message ?? 'error'}`);
  return body.result;
}

/** A header value as it is, on one line. */
const oneLine = (v: string) => v.replace(/[\r\n]/g, '');

const DialogLegSchema = z.object({
  tag: z.string().min(1),
  contact: z.string().min(1),
  cseq: z.coerce.number().int().min(0),
  route_set: z.string().default(''),
  socket: z.string().default(''),
});
type DialogLeg = z.infer<typeof DialogLegSchema>;

/** What `dlg.dlg_list` says of a dialog, as far as a BYE to each leg needs it. */
const EdgeDialogSchema = z.object({
  'call-id': z.string().min(1),
  from_uri: z.string().min(1),
  to_uri: z.string().min(1),
  state: z.number().int(),
  caller: DialogLegSchema,
  callee: DialogLegSchema,
});

/** Kamailio's dialog states: 3, answered and not yet acknowledged; 4, confirmed. */
const ANSWERED_STATES = new Set([3, 4]);

/** Kamailio's dialog states before an answer: 1, nothing heard from the callee yet; 2, ringing. */
const RINGING_STATES = new Set([1, 2]);

/** What `dlg.dlg_list` says of a dialog not answered yet: the caller's CSeq names its INVITE's transaction. */
const RingingDialogSchema = z.object({
  state: z.number().int(),
  caller: z.object({ cseq: z.coerce.number().int().min(0) }),
});

/** The CSeq of the INVITE of a dialog of `dlg.dlg_list` that is still ringing; null for any other. */
export function ringingCseq(dialog: unknown): number | null {
  const parsed = RingingDialogSchema.safeParse(dialog);
  return parsed.success && RINGING_STATES.has(parsed.data.state) ? parsed.data.caller.cseq : null;
}

/** The Via branch of these BYEs: kamailio.cfg drops the 200 each comes back with (deploy/kamailio). */
const STOP_BRANCH = 'z9hG4bKatriumstop';

/**
 * A CSeq well above the last one Kamailio saw from the other leg: a request of that leg still on
 * its way (or a trunk leg's CSeq moved up by a digest retry) cannot make the BYE's look old.
 */
const BYE_CSEQ_STEP = 100;

/**
 * The two BYEs of an answered dialog of `dlg.dlg_list`, each as the other leg would send it (From
 * its URI and tag, the To of the leg it goes to, the other leg's CSeq moved up), with a Route
 * through the Kamailio itself (a loose route to its own socket, then the leg's route set) and a Via
 * whose branch Kamailio's reply route recognises (the 200 comes back to it, for nobody), and the
 * SIP URI of the socket they are sent to. Null for a dialog not answered, or not read.
 */
export function edgeByes(dialog: unknown): { nextHop: string; message: string[] } | null {
  const parsed = EdgeDialogSchema.safeParse(dialog);
  if (!parsed.success || !ANSWERED_STATES.has(parsed.data.state)) return null;
  const d = parsed.data;
  // Kamailio's own address, from the socket of a leg (udp:127.0.0.1:5060): UDP preferred, as every Kamailio listens on it.
  const socket = [d.caller.socket, d.callee.socket].find((x) => x.startsWith('udp:')) ?? d.caller.socket;
  const m = /^(udp|tcp|tls|sctp):(.+):(\d+)$/.exec(socket);
  if (!m) return null;
  const [proto, host, port] = [m[1] ?? 'udp', m[2] ?? '', m[3] ?? ''];
  const self = `sip:${host}:${port};transport=${proto}`;
  const bye = (to: DialogLeg, toUri: string, from: DialogLeg, fromUri: string) => {
    const route = [`<${self};lr>`, ...(to.route_set ? [to.route_set] : [])].join(', ');
    const lines = [
      `BYE ${oneLine(to.contact)} SIP/2.0`,
      // (named Via by Kamailio: its xhttp module defaces a line starting with Via in an HTTP body)
      `Atrium-Via: SIP/2.0/${proto.toUpperCase()} ${host}:${port};branch=${STOP_BRANCH}${randomBytes(8).toString('hex')}`,
      'Max-Forwards: 70',
      `Route: ${oneLine(route)}`,
      `From: <${oneLine(fromUri)}>;tag=${oneLine(from.tag)}`,
      `To: <${oneLine(toUri)}>;tag=${oneLine(to.tag)}`,
      `Call-ID: ${oneLine(d['call-id'])}`,
      `CSeq: ${from.cseq + BYE_CSEQ_STEP} BYE`,
      'Reason: SIP;cause=200;text="Call stopped by the console"',
      'Content-Length: 0',
    ];
    return `${lines.join('\r\n')}\r\n\r\n`;
  };
  return { nextHop: self, message: [bye(d.caller, d.from_uri, d.callee, d.to_uri), bye(d.callee, d.to_uri, d.caller, d.from_uri)] };
}

/**
 * A directory stage as Kamailio rings it: numbers through usrloc, trunk targets as request URIs, and
 * the credentials of the stage's trunk for its digest challenge. The directory puts one trunk in a
 * stage (the forward group's, or the one of the callee's groups); were there two with different
 * logins, Kamailio could not tell which branch is whose, so none would be given.
 */
function edgeStage(stage: SipStage) {
  const numbers: string[] = [];
  const uris: string[] = [];
  const logins = new Map<string, { login: string; password: string }>();
  let withoutLogin = false;
  for (const t of stage.targets) {
    if (t.kind === 'number') {
      numbers.push(t.number);
      continue;
    }
    const termination = parseUri(t.trunk.terminationUri);
    if (!termination) continue;
    uris.push(formatUri({ ...termination, user: t.number, params: termination.params, headers: '' }));
    if (t.trunk.login && t.trunk.password)
      logins.set(`${t.trunk.login}\n${t.trunk.password}`, { login: t.trunk.login, password: t.trunk.password });
    else withoutLogin = true;
  }
  const trunk = logins.size === 1 && !withoutLogin ? [...logins.values()][0] : undefined;
  return { reason: stage.reason, timeout: stage.timeoutSeconds ?? 0, numbers, uris, trunk };
}
