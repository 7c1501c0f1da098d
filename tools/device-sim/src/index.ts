export { type AccessDecision, type AccessDeniedReason, decideAccess, SyncedData, scheduleOpen } from './access.js';
export { defaultModel, type PlayedSound, type ReaderDecision, type RemoteSession, SimDevice, type SimDeviceOptions } from './device.js';
export { Fleet, type FleetDevice, type FleetOptions, generateDevices } from './fleet.js';
export { type ApiAccess, initThroughApi, newDevicePassword } from './init.js';
export { type DeviceClient, encodePublish, type LeanClientOptions, LeanMqttClient, MqttReasonError } from './lean-client.js';
export { bandsPng } from './screen.js';
