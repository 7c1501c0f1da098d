import { DIALER } from './constants';

export const KEYPAD_KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '0', '#'] as const;
export type KeypadKey = (typeof KEYPAD_KEYS)[number];

export interface KeypadState {
  value: string;
  /** The number dialled last (the video button fills it into an empty keypad). */
  lastDialled: string | null;
}

export type KeypadAction =
  | { type: 'press'; key: KeypadKey }
  | { type: 'backspace' }
  | { type: 'clear' }
  | { type: 'set'; value: string }
  | { type: 'dialled'; number: string };

const ALLOWED = /[0-9*#]/g;

export function keypadReducer(state: KeypadState, action: KeypadAction): KeypadState {
  switch (action.type) {
    case 'press':
      return { ...state, value: state.value + action.key };
    case 'backspace':
      return { ...state, value: state.value.slice(0, -1) };
    case 'clear':
      return { ...state, value: '' };
    case 'set':
      return { ...state, value: (action.value.match(ALLOWED) ?? []).join('') };
    case 'dialled':
      return { value: '', lastDialled: action.number };
  }
}

/** What the keypad shows (spec comms §2): the typed number, or '...' until a digit is typed. */
export function keypadView(state: KeypadState) {
  const typed = state.value.length > 0;
  return {
    display: typed ? state.value : DIALER.keypadPlaceholder,
    /** Voice call and backspace show only when a number is typed. */
    showVoice: typed,
    showBackspace: typed,
    /** The video button is always there; with an empty keypad it fills the last dialled number. */
    showVideo: true,
  };
}

/** The video button: call the typed number, or with an empty keypad fill in the last dialled one. */
export function videoButton(state: KeypadState): { kind: 'call'; number: string } | { kind: 'fill'; number: string } | { kind: 'none' } {
  if (state.value) return { kind: 'call', number: state.value };
  if (state.lastDialled) return { kind: 'fill', number: state.lastDialled };
  return { kind: 'none' };
}
