import { ACCESS_REFUSALS, type AccessRefusal, type Explain } from '@atrium/contract';

type Step = Explain['steps'][number];

/** One sentence of the answer: a translation key and its values, and how the step went. */
export interface Line {
  key: string;
  args: Record<string, unknown>;
  /** 'skipped': the door refused for an earlier reason and never came to this step. */
  state: 'ok' | 'fail' | 'skipped';
}

/** How names and instants are written in the sentences (quoted names, the viewer's local time). */
export interface Wording {
  rule: (id: number) => string;
  schedule: (id: number) => string;
  identifier: (id: number) => string;
  date: (iso: string) => string;
}

export const reasonKey = (reason: string | null | undefined): string => `access_events.reasons.${reason ?? 'unknown'}`;

const numbers = (v: unknown): number[] => (Array.isArray(v) ? v.filter((x): x is number => typeof x === 'number') : []);
const text = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);

const SCHEDULE_CLOSED_BY = ['no_entry', 'exception', 'not_yet_valid', 'expired', 'missing'] as const;
const CLOSED_BY = new Set<unknown>(SCHEDULE_CLOSED_BY);

interface ScheduleState {
  id: number;
  open: boolean;
  by: string;
}
const schedulesOf = (v: unknown): ScheduleState[] =>
  Array.isArray(v)
    ? v
        .filter((s): s is Record<string, unknown> => typeof s === 'object' && s !== null && typeof (s as { id?: unknown }).id === 'number')
        // A closing cause the console does not know reads as plainly closed.
        .map((s) => ({ id: s.id as number, open: s.open === true, by: CLOSED_BY.has(s.by) ? (s.by as string) : 'no_entry' }))
    : [];

/** Did the door refuse before reaching the check that gives `refusal`? (ACCESS_REFUSALS is in the door's order.) */
const refusedBefore = (answer: Pick<Explain, 'granted' | 'reason'>, refusal: AccessRefusal): boolean =>
  !answer.granted && answer.reason !== null && ACCESS_REFUSALS.indexOf(answer.reason) < ACCESS_REFUSALS.indexOf(refusal);

const names = (ids: number[], name: (id: number) => string) => ids.map(name).join(', ');

/** The sentences of one step of the answer (most steps have one; a closed schedule may have several). */
export function stepLines(step: Step, answer: Explain, w: Wording): Line[] {
  const d = step.detail ?? {};
  const line = (key: string, args: Record<string, unknown> = {}, state: Line['state'] = step.ok ? 'ok' : 'fail'): Line => ({
    key: `explain.steps.${step.step}.${key}`,
    args,
    state,
  });
  const lock = answer.device.lock;
  const device = answer.device.name;
  switch (step.step) {
    case 'identifier':
      if (step.ok) return [line('ok', { name: answer.identifier?.name ?? '' })];
      return [line(d.count === 0 ? 'none' : 'missing')];
    case 'active':
    case 'revoked':
    case 'passes':
      return [line(step.ok ? 'ok' : 'fail')];
    case 'period': {
      const from = text(d.from);
      const to = text(d.to);
      if (step.ok) return [from || to ? line('ok', { from: from ? w.date(from) : '…', to: to ? w.date(to) : '…' }) : line('none')];
      if (from && Date.parse(answer.at) < Date.parse(from)) return [line('not_yet', { from: w.date(from) })];
      return [line('expired', { to: to ? w.date(to) : '…' })];
    }
    case 'device': {
      const rules = numbers(d.rules);
      if (!step.ok) return [line('fail', { device })];
      return [rules.length ? line('ok', { device, rules: names(rules, w.rule), smart_count: rules.length }) : line('ok_plain', { device })];
    }
    case 'rules': {
      const rules = numbers(d.rules);
      return [step.ok ? line('ok', { lock, rules: names(rules, w.rule), smart_count: Math.max(rules.length, 1) }) : line('fail', { lock })];
    }
    case 'prohibition': {
      const rules = numbers(d.rules);
      const args = { lock, rules: names(rules, w.rule), smart_count: Math.max(rules.length, 1) };
      if (!step.ok) return [line('fail', args)];
      if (rules.length === 0) return [line('none', { lock })];
      if (refusedBefore(answer, 'prohibited')) return [line('not_checked', args, 'skipped')];
      return [line('inactive', args)];
    }
    case 'schedule': {
      const schedules = schedulesOf(d.schedules);
      if (step.ok) {
        if (refusedBefore(answer, 'schedule') && schedules.length > 0) return [line('not_checked', {}, 'skipped')];
        const open = schedules.filter((s) => s.open).map((s) => s.id);
        return [open.length ? line('open', { schedules: names(open, w.schedule), smart_count: open.length }) : line('none')];
      }
      const closed = schedules.filter((s) => !s.open);
      if (closed.length === 0) return [line('closed', { schedules: '', smart_count: 1 })];
      return SCHEDULE_CLOSED_BY.flatMap((by) => {
        const ids = closed.filter((s) => s.by === by).map((s) => s.id);
        return ids.length ? [line(by === 'no_entry' ? 'closed' : by, { schedules: names(ids, w.schedule), smart_count: ids.length })] : [];
      });
    }
    case 'sync': {
      const pending = typeof d.pending === 'number' ? d.pending : 0;
      return [step.ok ? line('ok', { device }) : line('fail', { device, smart_count: pending })];
    }
  }
  return [];
}

/** The person asked about holds no identifier at all (the server's first step counts none). */
const holdsNoIdentifier = (answer: Explain): boolean =>
  answer.identifier === null && answer.steps.some((s) => s.step === 'identifier' && !s.ok && s.detail?.count === 0);

/**
 * The verdict on top: granted, or refused and why. A person without identifiers is refused because
 * they have nothing to show a door, not because a door does not know a card.
 */
export function verdictLine(answer: Explain, w: Wording): { key: string; args: Record<string, unknown>; reason: string | null } {
  const args = { device: answer.device.name, lock: answer.device.lock, at: w.date(answer.at), identifier: answer.identifier?.name ?? '' };
  if (answer.granted) return { key: 'explain.verdict.granted', args, reason: null };
  return { key: 'explain.verdict.refused', args, reason: holdsNoIdentifier(answer) ? 'explain.no_identifiers' : reasonKey(answer.reason) };
}

/** The ids the sentences name, so the page can fetch their names. */
export function namedIds(answer: Explain | undefined): { rules: number[]; schedules: number[]; identifiers: number[] } {
  const rules = new Set<number>();
  const schedules = new Set<number>();
  for (const s of answer?.steps ?? []) {
    for (const id of numbers(s.detail?.rules)) rules.add(id);
    for (const sc of schedulesOf(s.detail?.schedules)) schedules.add(sc.id);
  }
  return { rules: [...rules], schedules: [...schedules], identifiers: (answer?.others ?? []).map((o) => o.identifier_id) };
}

/** The question, as the page's address carries it. */
export interface Question {
  who: 'identifier' | 'user';
  identifier_id?: number;
  user_id?: number;
  device_id?: number;
  lock: number;
  /** ISO instant; absent: now. */
  at?: string;
}

const positive = (v: string | null): number | undefined => {
  const n = v === null ? Number.NaN : Number(v);
  return Number.isInteger(n) && n > 0 ? n : undefined;
};

/** The address's query → the question (what an access event's "Why?" opens). */
export function questionOf(params: URLSearchParams): Question {
  const identifier_id = positive(params.get('identifier_id'));
  const user_id = positive(params.get('user_id'));
  const device_id = positive(params.get('device_id'));
  const at = params.get('at');
  const q: Question = {
    who: user_id !== undefined && identifier_id === undefined ? 'user' : 'identifier',
    lock: positive(params.get('lock')) ?? 1,
  };
  if (identifier_id !== undefined) q.identifier_id = identifier_id;
  if (user_id !== undefined) q.user_id = user_id;
  if (device_id !== undefined) q.device_id = device_id;
  if (at && !Number.isNaN(Date.parse(at))) q.at = new Date(at).toISOString();
  return q;
}

/** The question → the query of `GET /access/explain`, or null while it lacks the person or the device. */
export function explainQuery(q: Question): Record<string, string | number> | null {
  const id = q.who === 'user' ? q.user_id : q.identifier_id;
  if (id === undefined || q.device_id === undefined) return null;
  const out: Record<string, string | number> = {
    [q.who === 'user' ? 'user_id' : 'identifier_id']: id,
    device_id: q.device_id,
    lock: q.lock,
  };
  if (q.at) out.at = q.at;
  return out;
}

/** The form's values → the address's query (a date-time input gives local time without offset). */
export function searchOf(values: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const who = values.who === 'user' ? 'user_id' : 'identifier_id';
  for (const k of [who, 'device_id', 'lock'] as const) {
    const v = values[k];
    if (v !== undefined && v !== null && v !== '') out[k] = String(v);
  }
  const at = values.at;
  if (at !== undefined && at !== null && at !== '') {
    const d = at instanceof Date ? at : new Date(String(at));
    if (!Number.isNaN(d.getTime())) out.at = d.toISOString();
  }
  return out;
}
