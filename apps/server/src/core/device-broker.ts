import type { Config } from '../config.js';

/**
 * Where devices reach the MQTT broker, as the server settings and the broker_settings task say it:
 * the external broker's address (MQTT_URL) without the account Atrium signs in with, or the
 * embedded broker on the project's host (its server URL, else PUBLIC_URL), plain on MQTT_PORT and,
 * with the own certificate, over TLS on MQTTS_PORT.
 */
export function deviceBrokerUrls(
  config: Pick<Config, 'mqttUrl' | 'mqttPort' | 'mqttsPort' | 'publicUrl'>,
  serverUrl: string | null,
): { url: string; tlsUrl: string | null } {
  if (config.mqttUrl) {
    const u = new URL(config.mqttUrl);
    // Atrium's own credentials at the broker are nobody else's to read.
    u.username = '';
    u.password = '';
    if (u.protocol === 'tcp:') u.protocol = 'mqtt:';
    return { url: u.toString().replace(/\/$/, ''), tlsUrl: null };
  }
  const host = new URL(serverUrl ?? config.publicUrl).hostname;
  return { url: `mqtt://${host}:${config.mqttPort}`, tlsUrl: `mqtts://${host}:${config.mqttsPort}` };
}
