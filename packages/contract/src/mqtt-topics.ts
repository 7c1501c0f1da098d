/** Root of Atrium's versioned MQTT topic tree (docs/device-protocol.md). */
export const MQTT_ROOT = 'atrium/v1';

/** A serial number as it may appear in a topic: no MQTT wildcard or level separator. */
export const TOPIC_SAFE_SERIAL = /^[A-Za-z0-9_-]{1,64}$/;

/** The subtree a device owns and alone may publish and subscribe under: `atrium/v1/devices/{serial}`. */
export const deviceSubtree = (serial: string): string => `${MQTT_ROOT}/devices/${serial}`;

/** One topic of a device's subtree, e.g. `deviceTopic('SN1', 'status')`. */
export const deviceTopic = (serial: string, leaf: string): string => `${deviceSubtree(serial)}/${leaf}`;

/** Largest MQTT packet the embedded broker accepts (bytes); a device message is far smaller. */
export const MQTT_MAX_PACKET_BYTES = 256 * 1024;
