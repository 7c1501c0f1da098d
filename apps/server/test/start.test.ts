// The process `npm start` runs (src/main.ts), started for real: embedded PGlite in a fresh data
// directory, the embedded MQTT broker, the printed sign-in, and the messages for taken ports.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import mqtt from 'mqtt';
import { afterEach, describe, expect, it } from 'vitest';

const MAIN = path.resolve(import.meta.dirname, '../src/main.ts');

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

const running: ChildProcess[] = [];
const dirs: string[] = [];

function start(env: Record<string, string>, dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-start-'))): Started {
  dirs.push(dataDir);
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'error',
      // Any free SIP ports: several servers start here, beside whatever holds 5060.
      SIP_PORT: '0',
      SIP_WS_PORT: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  let out = '';
  child.stdout?.on('data', (d) => {
    out += String(d);
  });
  child.stderr?.on('data', (d) => {
    out += String(d);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => out, exited };
}

async function waitForText(s: Started, text: string | RegExp, ms = 60_000): Promise<string> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const out = s.output();
    if (typeof text === 'string' ? out.includes(text) : text.test(out)) return out;
    if (s.child.exitCode !== null) throw new Error(`exited ${s.child.exitCode} before printing ${text}:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no ${text} in time:\n${s.output()}`);
}

afterEach(async () => {
  for (const c of running.splice(0)) {
    if (c.exitCode === null) {
      c.kill('SIGTERM');
      await new Promise((r) => c.once('exit', r));
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// Each start builds a whole server from source (tsx): on a loaded machine that takes well over the default 30 s.
describe('npm start (src/main.ts)', { timeout: 120_000 }, () => {
  it('refuses to start as a production server (NODE_ENV=production) without LICENSE_PUBLIC_KEY, naming the variable', async () => {
    const s = start({ PORT: String(await freePort()), NODE_ENV: 'production' });
    expect(await s.exited).toBe(2);
    expect(s.output()).toContain('LICENSE_PUBLIC_KEY is required when NODE_ENV=production');
    expect(s.output()).not.toContain('Atrium is running');
  });

  it('starts on PGlite with the embedded broker, prints the one-time password, and that password signs in', async () => {
    const [port, mqttPort] = [await freePort(), await freePort()];
    const dataDir = mkdtempSync(path.join(tmpdir(), 'atrium-start-'));
    const s = start({ PORT: String(port), MQTT_PORT: String(mqttPort) }, dataDir);
    const out = await waitForText(s, /password: (\S+)\s+\(shown only this once/);
    expect(out).toContain(`Atrium is running at http://localhost:${port}`);
    expect(out).toContain(`embedded broker on 127.0.0.1:${mqttPort}`);
    expect(out).toMatch(/SIP: UDP and TCP 127\.0\.0\.1:\d+, WebSocket ws:\/\/localhost:\d+/);
    expect(out).toContain('login:    admin');
    // No LICENSE_PUBLIC_KEY: the development licence, said in the sign-in lines.
    expect(out).toContain('! DEVELOPMENT LICENCE: LICENSE_PUBLIC_KEY is not set, so every feature is on without limits');
    const password = /password: (\S+)\s+\(shown only this once/.exec(out)?.[1] ?? '';
    expect(password.length).toBeGreaterThanOrEqual(12);

    const base = `http://127.0.0.1:${port}/api/v0`;
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'admin', password }),
    });
    expect(login.status).toBe(200);
    const token = (await login.json()).data.sessions[0].token as string;
    const profile = await fetch(`${base}/profile`, { headers: { authorization: `Bearer ${token}` } });
    expect((await profile.json()).data.login).toBe('admin');
    const wrong = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'admin', password: `${password}x` }),
    });
    expect(wrong.status).toBe(401);

    // The embedded broker listens, and refuses a client without credentials (gateways/mqtt/broker.test.ts covers the rest).
    await expect(mqtt.connectAsync(`mqtt://127.0.0.1:${mqttPort}`, { reconnectPeriod: 0, connectTimeout: 5000 })).rejects.toThrow(
      /not authori[sz]ed/i,
    );

    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);

    // A second start on the same data keeps the account and prints no password again.
    const again = start({ PORT: String(port), MQTT_PORT: String(mqttPort) }, dataDir);
    const out2 = await waitForText(again, 'Atrium is running at');
    await waitForText(again, 'existing account');
    expect(out2).not.toContain(password);
    const relogin = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'admin', password }),
    });
    expect(relogin.status).toBe(200);
  });

  it('keeps serving when the MQTT port is taken, and says how to use that broker or move the embedded one', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const mqttPort = (taken.address() as net.AddressInfo).port;
    try {
      const port = await freePort();
      const s = start({ PORT: String(port), MQTT_PORT: String(mqttPort), ADMIN_PASSWORD: 'start-test-password' });
      const out = await waitForText(s, 'Atrium is running at');
      expect(out).toContain(`MQTT port ${mqttPort} is already in use`);
      expect(out).toContain(`MQTT_URL=mqtt://127.0.0.1:${mqttPort} npm start`);
      expect(out).toContain('MQTT_PORT=1884 npm start');
      expect(out).toContain('password: the one given in ADMIN_PASSWORD');
      expect(out).not.toMatch(/\n\s+at /); // no stack trace
      expect((await fetch(`http://127.0.0.1:${port}/api/v0/info`)).status).toBe(200);
    } finally {
      taken.close();
    }
  });

  it('keeps serving when a SIP port is taken, and says how to choose others', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const wsPort = (taken.address() as net.AddressInfo).port;
    try {
      const port = await freePort();
      const s = start({ PORT: String(port), MQTT_URL: 'mqtt://127.0.0.1:1', SIP_WS_PORT: String(wsPort) });
      const out = await waitForText(s, 'Atrium is running at');
      expect(out).toContain(`SIP port TCP ${wsPort} (WebSocket) is already in use`);
      expect(out).toContain('SIP_PORT=5070 SIP_WS_PORT=8444 npm start');
      expect(out).toContain('SIP: not running (see above)');
      expect(out).not.toMatch(/\n\s+at /);
      expect((await fetch(`http://127.0.0.1:${port}/api/v0/info`)).status).toBe(200);
    } finally {
      taken.close();
    }
  });

  it('opens SIP over TLS with a certificate, and runs without it, saying so, when its port is taken', async () => {
    const certs = mkdtempSync(path.join(tmpdir(), 'atrium-start-tls-'));
    dirs.push(certs);
    const [cert, key] = [path.join(certs, 'cert.pem'), path.join(certs, 'key.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-days',
        '1',
        '-keyout',
        key,
        '-out',
        cert,
      ],
      { stdio: 'ignore' },
    );
    const env = { MQTT_URL: 'mqtt://127.0.0.1:1', SIP_TLS_CERT: cert, SIP_TLS_KEY: key };
    const open = start({ ...env, PORT: String(await freePort()), SIP_TLS_PORT: '0' });
    const out = await waitForText(open, 'Atrium is running at');
    const tlsPort = Number(/SIP: UDP and TCP 127\.0\.0\.1:\d+, TLS 127\.0\.0\.1:(\d+), WebSocket wss:\/\/localhost:\d+/.exec(out)?.[1]);
    expect(tlsPort).toBeGreaterThan(0);
    // A device's TLS connection: an OPTIONS over it is answered over it.
    const socket = tls.connect({ host: '127.0.0.1', port: tlsPort, rejectUnauthorized: false });
    try {
      await new Promise((resolve, reject) => socket.once('secureConnect', resolve).once('error', reject));
      const answer = new Promise<string>((resolve) => socket.once('data', (d) => resolve(String(d))));
      socket.write(
        `OPTIONS sip:127.0.0.1:${tlsPort} SIP/2.0\r\nVia: SIP/2.0/TLS 127.0.0.1:${socket.localPort};branch=z9hG4bK-start\r\n` +
          'From: <sip:probe@localhost>;tag=p\r\nTo: <sip:localhost>\r\nCall-ID: start-tls\r\nCSeq: 1 OPTIONS\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n',
      );
      expect(await answer).toMatch(/^SIP\/2\.0 200 OK\r\n/);
    } finally {
      socket.destroy();
    }

    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const takenPort = (taken.address() as net.AddressInfo).port;
    try {
      const port = await freePort();
      const s = start({ ...env, PORT: String(port), SIP_TLS_PORT: String(takenPort) });
      const text = await waitForText(s, 'Atrium is running at');
      expect(text).toContain(`SIP over TLS port ${takenPort} is already in use`);
      expect(text).toContain('SIP_TLS_PORT=5062 npm start');
      expect(text).toMatch(/SIP: UDP and TCP 127\.0\.0\.1:\d+, TLS not listening \(see above\), WebSocket wss:/);
      expect(text).not.toMatch(/\n\s+at /);
      expect((await fetch(`http://127.0.0.1:${port}/api/v0/info`)).status).toBe(200);
    } finally {
      taken.close();
    }
  });

  it('stops with one clear line when the HTTP port is taken', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    try {
      const s = start({ PORT: String(port), MQTT_URL: 'mqtt://127.0.0.1:1' });
      expect(await s.exited).toBe(1);
      expect(s.output()).toContain(`Port ${port} is already in use. Choose another one, for example: PORT=8081 npm start`);
      expect(s.output()).not.toMatch(/\n\s+at /);
    } finally {
      taken.close();
    }
  });

  it('refuses a bad variable by name, without a stack trace', async () => {
    const s = start({ PORT: 'eighty' });
    expect(await s.exited).toBe(2);
    expect(s.output()).toContain('PORT');
    expect(s.output()).not.toMatch(/\n\s+at /);
  });
});
