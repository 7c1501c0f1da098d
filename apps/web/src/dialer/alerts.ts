/** What a ring sounds like: tones (Hz) played together for `onMs`, then silence for `offMs`, looped. */
export interface RingPattern {
  steps: { freqs: number[]; ms: number }[];
}

/**
 * An ordinary ring: two 0.4 s bursts of 400+450 Hz, then 2 s of silence. An SOS call: a siren of
 * 960 and 770 Hz alternating every 250 ms, without pause (spec comms §4: SOS calls use an alarm).
 */
export function ringPattern(sos: boolean): RingPattern {
  if (sos)
    return {
      steps: [
        { freqs: [960], ms: 250 },
        { freqs: [770], ms: 250 },
      ],
    };
  return {
    steps: [
      { freqs: [400, 450], ms: 400 },
      { freqs: [], ms: 200 },
      { freqs: [400, 450], ms: 400 },
      { freqs: [], ms: 2000 },
    ],
  };
}

export const patternLength = (p: RingPattern): number => p.steps.reduce((n, s) => n + s.ms, 0);

/** Plays a ring pattern in a loop with WebAudio (no sound file shipped); stop() silences it. */
export class RingTone {
  private ctx: AudioContext | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private playing: 'ring' | 'sos' | null = null;

  constructor(
    private readonly createContext: () => AudioContext | null = () => (typeof AudioContext === 'undefined' ? null : new AudioContext()),
  ) {}

  play(sos: boolean): void {
    const kind = sos ? 'sos' : 'ring';
    if (this.playing === kind) return;
    this.stop();
    this.ctx ??= this.createContext();
    const ctx = this.ctx;
    if (!ctx) return;
    // A context made before any click starts suspended: resume it (a blocked resume stays silent).
    void ctx.resume?.().catch(() => undefined);
    this.playing = kind;
    const pattern = ringPattern(sos);
    const loop = () => {
      let at = ctx.currentTime + 0.02;
      for (const step of pattern.steps) {
        for (const freq of step.freqs) {
          const osc = ctx.createOscillator();
          const gain = ctx.createGain();
          osc.frequency.value = freq;
          osc.type = 'sine';
          gain.gain.setValueAtTime(0, at);
          gain.gain.linearRampToValueAtTime(0.15 / step.freqs.length, at + 0.01);
          gain.gain.setValueAtTime(0.15 / step.freqs.length, at + step.ms / 1000 - 0.01);
          gain.gain.linearRampToValueAtTime(0, at + step.ms / 1000);
          osc.connect(gain).connect(ctx.destination);
          osc.start(at);
          osc.stop(at + step.ms / 1000);
        }
        at += step.ms / 1000;
      }
      this.timer = setTimeout(loop, patternLength(pattern));
    };
    loop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.playing = null;
    // Closing the context cuts the bursts already scheduled; a new one is made for the next ring.
    void this.ctx?.close?.().catch(() => undefined);
    this.ctx = null;
  }
}

export interface NotificationLike {
  close(): void;
  onclick: ((this: unknown, ev: unknown) => unknown) | null;
}

export interface NotificationApi {
  readonly permission: NotificationPermission;
  requestPermission(): Promise<NotificationPermission>;
  new (title: string, options?: NotificationOptions): NotificationLike;
}

const browserNotification = (): NotificationApi | null =>
  typeof Notification === 'undefined' ? null : (Notification as unknown as NotificationApi);

/**
 * A desktop notification of an incoming call (spec comms §4): none when the browser lacks them;
 * shown when permitted; when the user has not chosen yet, asked for next time.
 */
export function notifyIncoming(
  text: { title: string; body: string; tag: string },
  onClick: () => void,
  api: NotificationApi | null = browserNotification(),
): NotificationLike | null {
  if (!api) return null;
  if (api.permission === 'default') {
    void api.requestPermission().catch(() => undefined);
    return null;
  }
  if (api.permission !== 'granted') return null;
  try {
    const n = new api(text.title, { body: text.body, tag: text.tag, requireInteraction: true });
    n.onclick = () => {
      onClick();
      n.close();
    };
    return n;
  } catch {
    // some browsers allow notifications only from a service worker
    return null;
  }
}
