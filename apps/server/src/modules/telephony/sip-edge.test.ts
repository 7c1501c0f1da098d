import { describe, expect, it } from 'vitest';
import { parseMessage } from '../../sip/message.js';
import { edgeByes, ringingCseq } from './sip-edge.js';

// The console's stop call at the Kamailio edge: the BYEs Atrium writes from Kamailio's dialog
// (dlg.dlg_list), each as the other phone would send it, routed through Kamailio itself.
describe('edgeByes', () => {
  const dialog = {
    'call-id': 'abc@192.0.2.10',
    from_uri: 'sip:7101@192.0.2.1',
    to_uri: 'sip:7102@192.0.2.1',
    state: 4,
    caller: { tag: 'caller-tag', contact: 'sip:7101@192.0.2.10:5062', cseq: '3', route_set: '', socket: 'udp:192.0.2.1:5060' },
    callee: {
      tag: 'callee-tag',
      contact: 'sip:7102@192.0.2.11:5064',
      cseq: '7',
      route_set: '<sip:192.0.2.50;lr>',
      socket: 'udp:192.0.2.1:5060',
    },
  };

  it('writes a BYE to each leg from the other, above its CSeq, through Kamailio', () => {
    const byes = edgeByes(dialog);
    expect(byes?.nextHop).toBe('sip:192.0.2.1:5060;transport=udp');
    const [toCaller, toCallee] = (byes?.message ?? []).map((m) => parseMessage(Buffer.from(m.replace('Atrium-Via:', 'Via:'))));
    if (toCaller?.kind !== 'request' || toCallee?.kind !== 'request') throw new Error('not two requests');
    expect(toCaller.uri).toBe('sip:7101@192.0.2.10:5062');
    expect(toCaller.headers.get('from')).toBe('<sip:7102@192.0.2.1>;tag=callee-tag');
    expect(toCaller.headers.get('to')).toBe('<sip:7101@192.0.2.1>;tag=caller-tag');
    expect(toCaller.headers.get('cseq')).toBe('107 BYE');
    expect(toCaller.headers.getAll('route')).toEqual(['<sip:192.0.2.1:5060;transport=udp;lr>']);
    expect(toCaller.headers.get('via')).toMatch(/^SIP\/2\.0\/UDP 192\.0\.2\.1:5060;branch=z9hG4bKatriumstop[0-9a-f]{16}$/);
    expect(toCallee.uri).toBe('sip:7102@192.0.2.11:5064');
    expect(toCallee.headers.get('from')).toBe('<sip:7101@192.0.2.1>;tag=caller-tag');
    expect(toCallee.headers.get('cseq')).toBe('103 BYE');
    expect(toCallee.headers.getAll('route')).toEqual(['<sip:192.0.2.1:5060;transport=udp;lr>', '<sip:192.0.2.50;lr>']);
  });

  it('writes none for a dialog not answered, or not understood', () => {
    expect(edgeByes({ ...dialog, state: 2 })).toBeNull();
    expect(edgeByes({ ...dialog, caller: { ...dialog.caller, socket: 'nowhere' }, callee: { ...dialog.callee, socket: '' } })).toBeNull();
    expect(edgeByes({ 'call-id': 'x' })).toBeNull();
  });
});

describe('ringingCseq', () => {
  it("names the INVITE's CSeq of a dialog not answered yet, and nothing for any other", () => {
    expect(ringingCseq({ state: 1, caller: { cseq: '7' } })).toBe(7);
    expect(ringingCseq({ state: 2, caller: { cseq: 12, tag: 'a' }, callee: {} })).toBe(12);
    expect(ringingCseq({ state: 4, caller: { cseq: 12 } })).toBeNull();
    expect(ringingCseq({ state: 2 })).toBeNull();
    expect(ringingCseq(null)).toBeNull();
  });
});
