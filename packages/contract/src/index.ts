export * from './access.js';
export * from './access-control.js';
// device alarms (issue 13)
export * from './alarms.js';
export * from './amenities.js';
// announces and polls (issue 13)
export * from './announces.js';
// API keys and webhooks (issue 14)
export * from './api-keys.js';
export * from './apple-wallet.js';
export * from './audit.js';
export * from './auth.js';
// backups (issue 14)
export * from './backups.js';
export * from './constants.js';
export * from './conversations.js';
export * from './dashboard.js';
export * from './device-protocol.js';
export * from './devices.js';
export * from './elevators.js';
// emergency alerts, lockdown and muster (issue 13)
export * from './emergency.js';
export * from './errors.js';
export * from './groups.js';
// integrations with Axxon One (issue 14)
export * from './integrations.js';
// IP blocking (issue 14)
export * from './ip-blocking.js';
export * from './licenses.js';
export * from './list-query.js';
// mail templates (issue 14)
export * from './mail-templates.js';
export * from './markers.js';
// mobile clients and push delivery (issue 14)
export * from './mobile-clients.js';
export * from './mqtt-topics.js';
export * from './notifications.js';
export * from './outbox.js';
export * from './permissions.js';
export * from './phone.js';
export * from './profile.js';
export * from './realtime.js';
export * from './registration.js';
export * from './roles.js';
export * from './settings.js';
export * from './sip-edge.js';
// single sign-on with OpenID Connect (issue 14)
export * from './sso.js';
export * from './system.js';
export * from './telephony.js';
export * from './time-zones.js';
// two-factor sign-in (issue 14)
export * from './two-factor.js';
export * from './users.js';
export * from './validators.js';
export * from './webhooks.js';
