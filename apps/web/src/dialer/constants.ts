import { TELEPHONY_DEFAULTS } from '@atrium/contract';

/** Spec comms §9: the dialer's constants (the contract's where it has them). */
export const DIALER = {
  historyPageSize: TELEPHONY_DEFAULTS.history_page_size,
  historyPage: 1,
  keypadPlaceholder: '...',
  /** An ended call stays on its card this long, then leaves the list. */
  endedCallRemovalMs: TELEPHONY_DEFAULTS.ended_call_removal_ms,
  callTimerTickMs: 1000,
  retryAfterErrorMs: 5000,
  retryAfterInvalidRegistrationMs: 30_000,
  /** JsSIP's register_expires is in seconds: 30000 ms. */
  registerExpiresSeconds: 30,
  // Spec §9 gives recovery as "min 20, max 30000" beside other millisecond values; JsSIP counts
  // whole seconds, so: at least 1 s (20 ms rounded up), at most 30 s.
  connectionRecoveryMinSeconds: 1,
  connectionRecoveryMaxSeconds: 30,
  secureWebSocketPort: TELEPHONY_DEFAULTS.sip_wss_port,
  doorDtmf: {
    tone: TELEPHONY_DEFAULTS.door_dtmf.digit,
    duration: TELEPHONY_DEFAULTS.door_dtmf.duration_ms,
    interToneGap: TELEPHONY_DEFAULTS.door_dtmf.gap_ms,
  },
  dtmfDuration: TELEPHONY_DEFAULTS.generic_dtmf_duration_ms,
} as const;

/** Spec comms §7 custom SIP headers: the same list the SIP server reads. */
export { SIP_HEADERS } from '@atrium/contract';

/**
 * Spec comms §7 says a STUN server is used, but names none: the phone takes one when the server's
 * settings name it, and otherwise offers host candidates only (an unreachable STUN server would
 * hold every call until ICE gathering times out on a closed site network).
 */
export const DEFAULT_ICE_SERVERS: RTCIceServer[] = [];
