import dgram from 'node:dgram';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type Bencoded,
  bdecode,
  bencode,
  hasSdp,
  type MediaRelay,
  MediaRelayError,
  mediaKindOf,
  parseRtpengineUrl,
  RtpengineClient,
  relayOptions,
  SdpRelay,
} from './media-relay.js';
import { SipHeaders, type SipRequest } from './message.js';
import { silentLog } from './testing.js';

const BROWSER_SDP = 'v=0\r\nm=audio 9 UDP/TLS/RTP/SAVPF 111 0\r\na=rtcp-mux\r\n';
const PANEL_SDP = 'v=0\r\nc=IN IP4 10.0.0.7\r\nm=audio 4000 RTP/AVP 0\r\n';

describe('bencode', () => {
  it('encodes strings, integers, lists and dictionaries with sorted keys', () => {
    expect(bencode({ command: 'ping' }).toString()).toBe('d7:command4:pinge');
    expect(bencode({ b: 1, a: ['x', -2], 'call-id': 'c1' }).toString()).toBe('d1:al1:xi-2ee1:bi1e7:call-id2:c1e');
    expect(bencode([]).toString()).toBe('le');
    expect(bencode(0).toString()).toBe('i0e');
  });

  it('counts string lengths in bytes, not characters', () => {
    expect(bencode('é')).toEqual(Buffer.from([0x32, 0x3a, 0xc3, 0xa9]));
  });

  it('decodes what it encodes', () => {
    const value: Bencoded = { sdp: 'v=0\r\nm=audio 1 RTP/AVP 0\r\n', flags: ['trust-address'], n: 42, nested: { list: [1, 'two', []] } };
    expect(bdecode(bencode(value))).toEqual(value);
  });

  it('decodes an rtpengine reply', () => {
    expect(bdecode(Buffer.from('d6:result4:ponge'))).toEqual({ result: 'pong' });
  });

  it('refuses broken input', () => {
    expect(() => bdecode(Buffer.from('d6:result'))).toThrow(SyntaxError);
    expect(() => bdecode(Buffer.from('i01e'))).toThrow(/bad integer/);
    expect(() => bdecode(Buffer.from('5:abc'))).toThrow(/longer/);
    expect(() => bdecode(Buffer.from('i1ei2e'))).toThrow(/trailing/);
    expect(() => bdecode(Buffer.from('di1ei2ee'))).toThrow(/key/);
    expect(() => bencode(1.5)).toThrow(TypeError);
  });
});

describe('which leg speaks WebRTC', () => {
  it('is WebRTC over a WebSocket, whatever the SDP', () => {
    expect(mediaKindOf('ws')).toBe('webrtc');
    expect(mediaKindOf('wss', PANEL_SDP)).toBe('webrtc');
  });

  it('is decided by the SDP profile over UDP and TCP', () => {
    expect(mediaKindOf('udp', PANEL_SDP)).toBe('plain');
    expect(mediaKindOf('tcp', Buffer.from(BROWSER_SDP))).toBe('webrtc');
    expect(mediaKindOf('udp', 'v=0\r\nm=audio 9 RTP/SAVPF 0\r\n')).toBe('webrtc');
    expect(mediaKindOf('udp')).toBe('plain');
  });

  it('relays only SDP bodies', () => {
    expect(hasSdp('application/sdp', Buffer.from(PANEL_SDP))).toBe(true);
    expect(hasSdp('Application/SDP; charset=utf-8', Buffer.from(PANEL_SDP))).toBe(true);
    expect(hasSdp('application/sdp', Buffer.alloc(0))).toBe(false);
    expect(hasSdp('application/dtmf-relay', Buffer.from('Signal=#'))).toBe(false);
    expect(hasSdp(undefined, Buffer.from(PANEL_SDP))).toBe(false);
  });
});

describe('rtpengine flags', () => {
  it('gives a browser ICE, DTLS-SRTP with rtpengine passive, rtcp-mux and a=mid', () => {
    expect(relayOptions('plain', 'webrtc', 'offer')).toEqual({
      replace: ['origin', 'session-connection'],
      flags: ['trust-address', 'generate-mid'],
      ICE: 'force',
      DTLS: 'passive',
      SDES: ['off'],
      'transport-protocol': 'UDP/TLS/RTP/SAVPF',
      'rtcp-mux': ['offer', 'require'],
    });
    expect(relayOptions('plain', 'webrtc', 'answer')).not.toHaveProperty('rtcp-mux');
    expect(relayOptions('plain', 'webrtc', 'answer')).toMatchObject({ ICE: 'force', 'transport-protocol': 'UDP/TLS/RTP/SAVPF' });
  });

  it('gives a panel plain RTP/AVP without ICE, demultiplexing RTCP a browser offered muxed', () => {
    expect(relayOptions('webrtc', 'plain', 'offer')).toEqual({
      replace: ['origin', 'session-connection'],
      flags: ['trust-address'],
      ICE: 'remove',
      DTLS: 'off',
      'transport-protocol': 'RTP/AVP',
      'rtcp-mux': ['demux'],
    });
    expect(relayOptions('plain', 'plain', 'offer')).not.toHaveProperty('rtcp-mux');
    expect(relayOptions('webrtc', 'plain', 'answer')).toMatchObject({ ICE: 'remove', 'transport-protocol': 'RTP/AVP' });
  });

  it('reads RTPENGINE_URL in the udp:host:port form', () => {
    expect(parseRtpengineUrl('udp:127.0.0.1:22222')).toEqual({ host: '127.0.0.1', port: 22222 });
    expect(parseRtpengineUrl('rtpe.local:2223')).toEqual({ host: 'rtpe.local', port: 2223 });
    expect(parseRtpengineUrl('udp:[::1]:22222')).toEqual({ host: '::1', port: 22222 });
    expect(() => parseRtpengineUrl('udp:127.0.0.1')).toThrow(/RTPENGINE_URL/);
    expect(() => parseRtpengineUrl('udp:127.0.0.1:70000')).toThrow(/RTPENGINE_URL/);
  });
});

function invite(body: string): SipRequest {
  const headers = new SipHeaders();
  headers.add('Content-Type', 'application/sdp');
  return { kind: 'request', method: 'INVITE', uri: 'sip:201@atrium', headers, body: Buffer.from(body) };
}

describe('SdpRelay', () => {
  const legs = { callId: 'call-1', fromTag: 'a', from: 'plain', to: 'webrtc' } as const;

  it('replaces the body with the relay SDP, one command at a time per call', async () => {
    const order: string[] = [];
    const relay: MediaRelay = {
      ping: async () => true,
      offer: async (o) => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        order.push('offer');
        return Buffer.from(`relayed ${o.sdp.toString()}`);
      },
      answer: async () => {
        order.push('answer');
        return Buffer.from('answer');
      },
      delete: async () => {
        order.push('delete');
      },
      close: async () => undefined,
    };
    const media = new SdpRelay(relay, silentLog);
    const offered = media.rewrite('offer', invite(PANEL_SDP), legs);
    const answered = media.rewrite('answer', invite('v=0\r\n'), { ...legs, toTag: 'b' });
    media.delete('call-1');
    expect((await offered).body.toString()).toBe(`relayed ${PANEL_SDP}`);
    expect((await answered).body.toString()).toBe('answer');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(order).toEqual(['offer', 'answer', 'delete']);
  });

  it('leaves the SDP as it was when rtpengine fails: media end to end', async () => {
    const failing: MediaRelay = {
      ping: async () => true,
      offer: async () => {
        throw new Error('down');
      },
      answer: async () => {
        throw new Error('down');
      },
      delete: async () => {
        throw new Error('down');
      },
      close: async () => undefined,
    };
    const media = new SdpRelay(failing, silentLog);
    const msg = invite(PANEL_SDP);
    expect(await media.rewrite('offer', msg, legs)).toBe(msg);
    media.delete('call-1');
    expect(media.carries(msg)).toBe(true);
  });

  it('stops asking a relay that does not answer, and asks again once a ping answers', async () => {
    vi.useFakeTimers();
    let up = false;
    let offers = 0;
    const relay: MediaRelay = {
      ping: async () => up,
      offer: async () => {
        offers++;
        if (!up) throw new MediaRelayError('rtpengine did not answer "offer" within 2000 ms');
        return Buffer.from('relayed');
      },
      answer: async () => Buffer.alloc(0),
      delete: async () => undefined,
      close: async () => undefined,
    };
    const media = new SdpRelay(relay, silentLog);
    try {
      expect((await media.rewrite('offer', invite(PANEL_SDP), legs)).body.toString()).toBe(PANEL_SDP);
      expect((await media.rewrite('offer', invite(PANEL_SDP), legs)).body.toString()).toBe(PANEL_SDP);
      expect(offers).toBe(1);
      up = true;
      await vi.advanceTimersByTimeAsync(1000);
      expect((await media.rewrite('offer', invite(PANEL_SDP), legs)).body.toString()).toBe('relayed');
      expect(offers).toBe(2);
    } finally {
      await media.close();
      vi.useRealTimers();
    }
  });
});

describe('RtpengineClient', () => {
  let fake: dgram.Socket | null = null;
  afterEach(() => {
    fake?.close();
    fake = null;
  });

  /** A stand-in rtpengine answering each command with `reply(command)`. */
  async function fakeRtpengine(reply: (cmd: { [key: string]: Bencoded }) => Bencoded | null): Promise<string> {
    const socket = dgram.createSocket('udp4');
    fake = socket;
    socket.on('message', (data, from) => {
      const space = data.indexOf(0x20);
      const cmd = bdecode(data.subarray(space + 1)) as { [key: string]: Bencoded };
      const answer = reply(cmd);
      if (answer !== null) socket.send(Buffer.concat([data.subarray(0, space + 1), bencode(answer)]), from.port, from.address);
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    return `udp:127.0.0.1:${socket.address().port}`;
  }

  it('sends the offer with the call, tags and flags, and returns the SDP rtpengine wrote', async () => {
    const seen: Array<{ [key: string]: Bencoded }> = [];
    const url = await fakeRtpengine((cmd): Bencoded => {
      seen.push(cmd);
      return cmd.command === 'ping' ? { result: 'pong' } : { result: 'ok', sdp: 'v=0\r\nm=audio 30000 UDP/TLS/RTP/SAVPF 0\r\n' };
    });
    const client = await RtpengineClient.connect(url, silentLog);
    try {
      expect(await client.ping()).toBe(true);
      const sdp = await client.offer({
        callId: 'c',
        fromTag: 'f',
        viaBranch: 'b0',
        sdp: Buffer.from(PANEL_SDP),
        from: 'plain',
        to: 'webrtc',
      });
      expect(sdp.toString()).toContain('UDP/TLS/RTP/SAVPF');
      expect(seen[1]).toMatchObject({
        command: 'offer',
        'call-id': 'c',
        'from-tag': 'f',
        'via-branch': 'b0',
        sdp: PANEL_SDP,
        ICE: 'force',
      });
    } finally {
      await client.close();
    }
  });

  it("raises rtpengine's error reason and a time-out", async () => {
    const url = await fakeRtpengine((cmd) => (cmd.command === 'delete' ? { result: 'error', 'error-reason': 'Unknown call-id' } : null));
    const client = await RtpengineClient.connect(url, silentLog, 300);
    try {
      await expect(client.delete('nope')).rejects.toThrow(/Unknown call-id/);
      await expect(client.command('ping')).rejects.toThrow(/did not answer "ping"/);
      expect(await client.ping(100)).toBe(false);
    } finally {
      await client.close();
    }
  });
});
