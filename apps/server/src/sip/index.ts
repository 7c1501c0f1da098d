/** The SIP server's public surface: what the Atrium server process starts and what it implements. */
export type { SipActiveCall } from './call.js';
export { inNetwork, type SipNetworkSettings } from './local-address.js';
export type { RegistrarOptions } from './registrar.js';
export { type SipServer, type SipServerOptions, startSipServer } from './server.js';
export type { SipLogger, SipTimerOptions } from './server-types.js';
export * from './types.js';
