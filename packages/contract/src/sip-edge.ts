import { z } from 'zod';

/**
 * Kamailio at the SIP edge (SIP_EDGE=kamailio; deploy/kamailio/README.md) asks Atrium where a call
 * goes and tells it what became of the call. Internal routes: only the addresses in SIP_EDGE_FROM
 * get an answer. Kamailio builds these bodies with its jansson module, so every field is plain.
 */

const number = z.string().max(100);
const callId = z.string().min(1).max(500);

/** An out-of-dialog INVITE Kamailio received. */
export const SipEdgeRouteRequestSchema = z.object({
  callId,
  /** The digest user Kamailio authenticated (equal to the From user), or the From user when `authenticated` is false. */
  caller: number,
  /** The request-URI user: what was dialled. */
  callee: number,
  /** False: no credentials came; Atrium answers `challenge` unless the sender is a SIP trunk's peer. */
  authenticated: z.boolean(),
  /** Where the INVITE came from: a SIP trunk is trusted by its transport, address and port. */
  source: z.object({
    transport: z.enum(['udp', 'tcp', 'tls', 'ws', 'wss']),
    address: z.string().min(1).max(100),
    port: z.number().int().min(0).max(65535),
  }),
  /** The X-Sos-Call and X-Speech-Id headers when the INVITE has them. */
  sos: z.string().max(20).optional(),
  speechId: z.string().max(200).optional(),
  /** X-Resume-Call: the speech id of a held call its answerer takes back from a new page. */
  resume: z.string().max(200).optional(),
});
export type SipEdgeRouteRequest = z.infer<typeof SipEdgeRouteRequestSchema>;

/**
 * Atrium's answer. Kamailio's json module reads top-level fields only, so a fork's stages come flat:
 * `stages` is their count and stage N is `stageN_reason` (initial, no_answer, error),
 * `stageN_timeout` (seconds it rings before the no-answer stage; 0: until the caller gives up),
 * `stageN_numbers` (Atrium numbers, comma-separated: their registered contacts ring) and
 * `stageN_uris` (outside numbers through a SIP trunk, request URIs separated by spaces), with
 * `stageN_trunk_login` and `stageN_trunk_password` when that trunk has a login: Kamailio answers the
 * trunk's digest challenge (401/407) with them, once.
 */
export const SipEdgeRouteSchema = z.discriminatedUnion('action', [
  z.object({ action: z.literal('reject'), status: z.number().int(), reason: z.string() }),
  z.object({ action: z.literal('challenge') }),
  /**
   * A held call taken back (X-Resume-Call): the INVITE goes to the other party's contact `uri` with
   * `Replaces: <replaces>` (RFC 3891), so that party's phone swaps the old dialog, whose page is
   * gone, for the new one.
   */
  z.object({
    action: z.literal('replace'),
    /** The other party's number: its registered contacts first (their NAT addresses are known there). */
    number,
    /** The other party's contact as the dialog holds it: a phone not registered (a trunk) is reached there. */
    uri: z.string(),
    replaces: z.string(),
    speechId: z.string(),
  }),
  z
    .object({
      action: z.literal('fork'),
      /** The number the call was resolved to (X-Target-Callee). */
      callee: number,
      sos: z.boolean(),
      speechId: z.string(),
      /** The caller as Atrium asserts it to the callees (P-Asserted-Identity); empty for a trunk's caller. */
      callerName: z.string(),
      stages: z.number().int().min(1),
    })
    .passthrough(),
]);
export type SipEdgeRoute = z.infer<typeof SipEdgeRouteSchema>;

/** A comma list of numbers as Kamailio sends it back from a stage. */
const numberList = z
  .string()
  .max(20_000)
  .transform((v) =>
    v
      .split(',')
      .map((n) => n.trim())
      .filter(Boolean),
  );

/**
 * What happened to a routed call. `ringing` and `forwarded` name the numbers of the stage ringing
 * now; `answered` names the answering contact (its usrloc ruid and Contact URI, whose number Atrium
 * reads from the location table); `ended` carries the final status, with `unreachable` when no
 * contact of the last stage could be rung (recorded as failed, not as no answer); `info` and
 * `reoffer` carry in-dialog DTMF and hold/resume offers as the embedded server reads them.
 */
export const SipEdgeEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ringing'), callId, numbers: numberList }),
  z.object({
    type: z.literal('forwarded'),
    callId,
    reason: z.enum(['no_answer', 'error']),
    numbers: numberList,
  }),
  z.object({ type: z.literal('answered'), callId, ruid: z.string().max(200), contact: z.string().max(1000) }),
  /** An in-dialog INFO (DTMF: the door's `#`), its body hex-encoded; `from` is its From user. */
  z.object({
    type: z.literal('info'),
    callId,
    from: number,
    contentType: z.string().max(200),
    body: z
      .string()
      .max(20_000)
      .regex(/^[0-9a-fA-F]*$/),
  }),
  /**
   * A re-INVITE's offer the other side accepted (2xx): hold or resume; with the request's From and
   * To tags and its request URI as it came (the other party's target), which a resume's Replaces names.
   */
  z.object({
    type: z.literal('reoffer'),
    callId,
    from: number,
    fromTag: z.string().max(200).optional(),
    toTag: z.string().max(200).optional(),
    target: z.string().max(1000).optional(),
    contentType: z.string().max(200),
    body: z
      .string()
      .max(40_000)
      .regex(/^[0-9a-fA-F]*$/),
  }),
  /** The other party accepted a resume's INVITE (2xx): `callId` is the new dialog's. */
  z.object({ type: z.literal('resumed'), callId }),
  /** A resume's INVITE failed (`status`): the call stays held on its old dialog. */
  z.object({ type: z.literal('resume_failed'), callId, status: z.number().int().min(0).max(699) }),
  z.object({
    type: z.literal('ended'),
    callId,
    status: z.number().int().min(0).max(699),
    unreachable: z.boolean().default(false),
  }),
]);
export type SipEdgeEvent = z.infer<typeof SipEdgeEventSchema>;
