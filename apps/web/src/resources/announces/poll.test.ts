import { describe, expect, it } from 'vitest';
import { answerBody, percent, pollProblem, questionBars, recipientsProblem, toggle, writeOwn } from './poll';

describe('poll results as bars', () => {
  it('gives each answer its share of the respondents and scales bars to the most chosen', () => {
    const bars = questionBars(
      {
        id: 1,
        text: 'Colour?',
        respondents: 4,
        own_answers: 1,
        answers: [
          { id: 1, text: 'White', count: 2 },
          { id: 2, text: 'Green', count: 1 },
          { id: 3, text: 'Blue', count: 0 },
        ],
      },
      'Own answers',
    );
    expect(bars.map((b) => [b.label, b.count, b.percent, b.scale, b.leader])).toEqual([
      ['White', 2, 50, 1, true],
      ['Green', 1, 25, 0.5, false],
      ['Blue', 0, 0, 0, false],
      ['Own answers', 1, 25, 0.5, false],
    ]);
  });

  it('draws empty bars before anyone answered', () => {
    const bars = questionBars({ id: 1, text: 'Q', respondents: 0, own_answers: 0, answers: [{ id: 1, text: 'A', count: 0 }] }, 'Own');
    expect(bars).toEqual([{ key: 'a1', label: 'A', count: 0, percent: 0, scale: 0, leader: false }]);
    expect(percent(1, 3)).toBe(33);
  });
});

describe('the form rules', () => {
  it('need recipients, and a poll needs questions with answers unless own answers are allowed', () => {
    expect(recipientsProblem([], [])).toBe('announces.recipients_required');
    expect(recipientsProblem([1], undefined)).toBeUndefined();
    expect(recipientsProblem(undefined, [2])).toBeUndefined();
    expect(pollProblem('info', undefined)).toBeUndefined();
    expect(pollProblem('poll', { questions: [] })).toBe('announces.no_questions');
    expect(pollProblem('poll', { questions: [{ text: 'Q', answers: [] }] })).toBe('announces.answers_required');
    expect(pollProblem('poll', { questions: [{ text: 'Q', answers: [] }], poll_user_answer_allowed: true })).toBeUndefined();
    expect(pollProblem('poll', { questions: [{ text: 'Q', answers: [{ text: 'A' }] }] })).toBeUndefined();
  });
});

describe("the recipient's answer", () => {
  const info = {
    questions: [
      {
        id: 1,
        text: 'Paint?',
        answers: [
          { id: 1, text: 'Yes' },
          { id: 2, text: 'No' },
        ],
      },
      {
        id: 2,
        text: 'Colour?',
        answers: [
          { id: 1, text: 'White' },
          { id: 2, text: 'Green' },
        ],
      },
    ],
    poll_multi_answers_allowed: false,
    poll_user_answer_allowed: true,
  };

  it('keeps one answer per question when only one is allowed, an own answer replacing the choice', () => {
    let c = toggle({}, 1, 1, false);
    c = toggle(c, 1, 2, false);
    expect(c[1]).toEqual({ ids: [2], own: '' });
    c = writeOwn(c, 1, 'Later', false);
    expect(c[1]).toEqual({ ids: [], own: 'Later' });
    c = toggle(c, 1, 1, false);
    expect(c[1]).toEqual({ ids: [1], own: '' });
    expect(toggle(c, 1, 1, false)[1]).toEqual({ ids: [], own: '' });
  });

  it('keeps several answers and an own answer together when several are allowed', () => {
    let c = toggle({}, 2, 2, true);
    c = toggle(c, 2, 1, true);
    c = writeOwn(c, 2, 'Beige', true);
    expect(c[2]).toEqual({ ids: [2, 1], own: 'Beige' });
  });

  it('is sent only when every question has an answer', () => {
    const partial = toggle({}, 1, 1, false);
    expect(answerBody(info, partial)).toBeNull();
    const whole = writeOwn(partial, 2, '  Beige ', false);
    expect(answerBody(info, whole)).toEqual({
      answers: [
        { question_id: 1, answer_ids: [1], own_answer: null },
        { question_id: 2, answer_ids: [], own_answer: 'Beige' },
      ],
    });
    // An own answer typed where the poll does not allow one is not sent.
    expect(answerBody({ ...info, poll_user_answer_allowed: false }, whole)).toBeNull();
  });
});

describe('the form as the API takes it', () => {
  it('sends only writable fields, trims texts, drops a poll part of an information announce', async () => {
    const { toBody } = await import('./poll');
    const record = {
      id: 4,
      status: 'new',
      stats: { recipients: 0 },
      name: ' Hall ',
      description: '',
      subject: 'Repairs',
      type: 'info',
      type_info: { questions: [{ id: 1, text: 'Q', answers: [{ id: 1, text: 'A' }] }], poll_multi_answers_allowed: true },
      send_via: 'email_app',
      body: '<p>x</p>',
      users: [3, '5'],
      domains: [],
      execute_at: '2026-12-01T10:00:00.000Z',
      users_info: [],
    };
    expect(toBody(record)).toEqual({
      name: 'Hall',
      description: null,
      subject: 'Repairs',
      type: 'info',
      type_info: { questions: [], poll_multi_answers_allowed: false, poll_user_answer_allowed: false },
      send_via: 'email_app',
      body: '<p>x</p>',
      use_owner_info: false,
      users: [3, 5],
      domains: [],
      execute_at: '2026-12-01T10:00:00.000Z',
    });
    const poll = toBody({ ...record, type: 'poll', execute_at: '' });
    expect(poll.type_info).toEqual({
      questions: [{ text: 'Q', answers: [{ text: 'A' }] }],
      poll_multi_answers_allowed: true,
      poll_user_answer_allowed: false,
    });
    expect(poll.execute_at).toBeNull();
  });
});
