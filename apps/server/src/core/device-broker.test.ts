import { describe, expect, it } from 'vitest';
import { deviceBrokerUrls } from './device-broker.js';

const base = { mqttPort: 1883, mqttsPort: 8883, publicUrl: 'http://localhost:3000' };

describe('where devices reach the broker', () => {
  it('is the embedded broker on the project host, plain and over TLS', () => {
    expect(deviceBrokerUrls({ ...base, mqttUrl: undefined }, 'https://atrium.example.org')).toEqual({
      url: 'mqtt://atrium.example.org:1883',
      tlsUrl: 'mqtts://atrium.example.org:8883',
    });
    expect(deviceBrokerUrls({ ...base, mqttUrl: undefined }, null).url).toBe('mqtt://localhost:1883');
  });

  it('is the external broker without the account Atrium signs in with', () => {
    const r = deviceBrokerUrls({ ...base, mqttUrl: 'mqtt://atrium-admin:s3cret@broker.example.org:1883' }, null);
    expect(r).toEqual({ url: 'mqtt://broker.example.org:1883', tlsUrl: null });
    expect(deviceBrokerUrls({ ...base, mqttUrl: 'tcp://broker.example.org:1883' }, null).url).toBe('mqtt://broker.example.org:1883');
  });
});
