/**
 * Spec comms §7 custom SIP headers, as the SIP server reads and sets them and the web dialer sends
 * them; `resume` (Atrium's own) names on a new INVITE the speech id of a parked call its sender takes back.
 * A file of its own, without imports: the SIP server's thread loads it alone (`@atrium/contract/sip-headers`)
 * instead of the whole contract, which made up most of a new SIP worker's start.
 */
export const SIP_HEADERS = {
  speechId: 'X-Speech-Id',
  sos: 'X-Sos-Call',
  speechType: 'X-Speech-Type',
  targetCallee: 'X-Target-Callee',
  resume: 'X-Resume-Call',
} as const;
