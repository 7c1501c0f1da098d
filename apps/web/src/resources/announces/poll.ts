import type { AnnounceAnswer, AnnounceResults, AnnounceStatus, AnnounceTypeInfo, PublicAnnounce } from '@atrium/contract';

/** A whole percentage of `part` in `whole` (0 when there is no whole). */
export const percent = (part: number, whole: number): number => (whole > 0 ? Math.round((part / whole) * 100) : 0);

export interface Bar {
  key: string;
  label: string;
  count: number;
  /** Share of the question's respondents (several answers may add up to more than 100). */
  percent: number;
  /** Length of the bar against the most chosen answer (0..1): the leader fills the track. */
  scale: number;
  leader: boolean;
}

/** The bars of one question: one per answer in the author's order, then own answers when there are any. */
export function questionBars(q: AnnounceResults['questions'][number], ownLabel: string): Bar[] {
  const items = q.answers.map((a) => ({ key: `a${a.id}`, label: a.text, count: a.count }));
  if (q.own_answers > 0) items.push({ key: 'own', label: ownLabel, count: q.own_answers });
  const max = Math.max(0, ...items.map((i) => i.count));
  return items.map((i) => ({
    ...i,
    percent: percent(i.count, q.respondents),
    scale: max > 0 ? i.count / max : 0,
    leader: max > 0 && i.count === max,
  }));
}

/** What the form's poll editor holds, checked as the server will (spec comms §5). */
export function pollProblem(type: string | undefined, info: Partial<AnnounceTypeInfo> | undefined): string | undefined {
  if (type !== 'poll') return undefined;
  const questions = info?.questions ?? [];
  if (!questions.length) return 'announces.no_questions';
  if (info?.poll_user_answer_allowed) return undefined;
  return questions.some((q) => !(q?.answers ?? []).length) ? 'announces.answers_required' : undefined;
}

/** Recipients are required: users or groups. */
export const recipientsProblem = (users: unknown, domains: unknown): string | undefined =>
  (Array.isArray(users) && users.length) || (Array.isArray(domains) && domains.length) ? undefined : 'announces.recipients_required';

/** A recipient's choices on the page: answer ids and an own answer per question. */
export type Choices = Record<number, { ids: number[]; own: string }>;

/** Picks or unpicks an answer: a single-answer question keeps one (and drops an own answer). */
export function toggle(choices: Choices, questionId: number, answerId: number, multi: boolean): Choices {
  const current = choices[questionId] ?? { ids: [], own: '' };
  const has = current.ids.includes(answerId);
  const ids = multi ? (has ? current.ids.filter((x) => x !== answerId) : [...current.ids, answerId]) : has ? [] : [answerId];
  return { ...choices, [questionId]: { ids, own: multi ? current.own : '' } };
}

/** Writes an own answer: a single-answer question then drops its chosen answer. */
export function writeOwn(choices: Choices, questionId: number, text: string, multi: boolean): Choices {
  const current = choices[questionId] ?? { ids: [], own: '' };
  return { ...choices, [questionId]: { ids: multi || !text.trim() ? current.ids : [], own: text } };
}

/** The body of PUT /announcements/token/:token, or null while a question has no answer. */
export function answerBody(info: PublicAnnounce['type_info'], choices: Choices): { answers: AnnounceAnswer[] } | null {
  const answers = info.questions.map((q) => {
    const c = choices[q.id] ?? { ids: [], own: '' };
    const own = info.poll_user_answer_allowed ? c.own.trim() : '';
    return { question_id: q.id, answer_ids: [...c.ids].sort((a, b) => a - b), own_answer: own || null };
  });
  return answers.every((a) => a.answer_ids.length > 0 || a.own_answer) ? { answers } : null;
}

export const STATUS_COLORS: Record<AnnounceStatus, 'default' | 'info' | 'warning' | 'success' | 'error'> = {
  new: 'default',
  scheduled: 'info',
  sending: 'warning',
  sent: 'success',
  stopped: 'error',
};

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
const ids = (v: unknown): number[] => (Array.isArray(v) ? v.map(Number).filter((n) => Number.isInteger(n) && n > 0) : []);

/** When to send: the picker's local date and time as an instant, or null. */
export function executeAtOf(v: unknown): string | null {
  if (v === null || v === undefined || v === '') return null;
  const d = v instanceof Date ? v : new Date(String(v));
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** The form's values as the API takes them (PUT and PATCH /announcements): only the fields one may write. */
export function toBody(values: Record<string, unknown>): Record<string, unknown> {
  const type = values.type === 'poll' ? 'poll' : 'info';
  const info = (values.type_info ?? {}) as Partial<AnnounceTypeInfo>;
  const description = text(values.description);
  return {
    name: text(values.name),
    description: description || null,
    subject: text(values.subject),
    type,
    type_info:
      type === 'poll'
        ? {
            questions: (info.questions ?? []).map((q) => ({
              text: text(q?.text),
              answers: (q?.answers ?? []).map((a) => ({ text: text(a?.text) })),
            })),
            poll_multi_answers_allowed: !!info.poll_multi_answers_allowed,
            poll_user_answer_allowed: !!info.poll_user_answer_allowed,
          }
        : { questions: [], poll_multi_answers_allowed: false, poll_user_answer_allowed: false },
    send_via: values.send_via ?? 'email',
    body: typeof values.body === 'string' ? values.body : '',
    use_owner_info: !!values.use_owner_info,
    users: ids(values.users),
    domains: ids(values.domains),
    execute_at: executeAtOf(values.execute_at),
  };
}
