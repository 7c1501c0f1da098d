import { describe, expect, it } from 'vitest';
import { type KeypadState, keypadReducer, keypadView, videoButton } from './keypad';

const empty: KeypadState = { value: '', lastDialled: null };

describe('keypad', () => {
  it("shows the placeholder '...' until a digit is typed, then the number", () => {
    expect(keypadView(empty).display).toBe('...');
    const typed = keypadReducer(keypadReducer(empty, { type: 'press', key: '1' }), { type: 'press', key: '#' });
    expect(keypadView(typed).display).toBe('1#');
  });

  it('shows voice call and backspace only with a number typed; video always', () => {
    expect(keypadView(empty)).toMatchObject({ showVoice: false, showBackspace: false, showVideo: true });
    const typed = keypadReducer(empty, { type: 'press', key: '5' });
    expect(keypadView(typed)).toMatchObject({ showVoice: true, showBackspace: true, showVideo: true });
    expect(keypadView(keypadReducer(typed, { type: 'backspace' })).showVoice).toBe(false);
  });

  it('keeps only digits, * and # when a number is pasted', () => {
    expect(keypadReducer(empty, { type: 'set', value: '+1 (23) 4-5*#x' }).value).toBe('12345*#');
  });

  it('video with an empty keypad fills the last dialled number; with a number it calls', () => {
    expect(videoButton(empty)).toEqual({ kind: 'none' });
    const dialled = keypadReducer({ value: '101', lastDialled: null }, { type: 'dialled', number: '101' });
    expect(dialled).toEqual({ value: '', lastDialled: '101' });
    expect(videoButton(dialled)).toEqual({ kind: 'fill', number: '101' });
    expect(videoButton({ ...dialled, value: '202' })).toEqual({ kind: 'call', number: '202' });
  });
});
