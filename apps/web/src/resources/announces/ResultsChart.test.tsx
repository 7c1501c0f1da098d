import type { AnnounceResults } from '@atrium/contract';
import { AdminContext, memoryStore } from 'react-admin';
import { renderToString } from 'react-dom/server';
// react-router-dom: the copy of react-router that react-admin reads its router from.
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { createI18nProvider } from '../../i18n';
import '../../i18n/areas';
import { ResultsChart } from './ResultsChart';

const results: AnnounceResults = {
  recipients: 4,
  answered: 3,
  questions: [
    {
      id: 1,
      text: 'Paint the hall in May?',
      respondents: 3,
      own_answers: 0,
      answers: [
        { id: 1, text: 'Yes', count: 2 },
        { id: 2, text: 'No', count: 1 },
      ],
    },
    { id: 2, text: 'Which colour?', respondents: 3, own_answers: 1, answers: [{ id: 1, text: 'White', count: 2 }] },
  ],
};

// No DOM in these tests (environment node): rendered to HTML as the server would.
const render = (locale: 'en' | 'ru') =>
  renderToString(
    <MemoryRouter>
      <AdminContext i18nProvider={createI18nProvider(locale)} store={memoryStore({ locale })}>
        <ResultsChart results={results} />
      </AdminContext>
    </MemoryRouter>,
  );

describe('poll results', () => {
  it('show the share who answered and a bar per answer, the longest for the most chosen', () => {
    const html = render('en');
    expect(html).toContain('3 of 4 recipients answered (75%)');
    expect(html).toContain('aria-label="Results of question 1: Paint the hall in May?"');
    expect(html).toContain('2 (67%)');
    expect(html).toContain('1 (33%)');
    // Bars are scaled against the leader: "Yes" fills the track, "No" half of it.
    expect(html).toMatch(/aria-label="Yes: 2".*?width="100%" height="18"[^>]*><\/rect>.*?width="100%"/s);
    expect(html).toContain('width="50%"');
    // Own answers have their own bar.
    expect(html).toContain('Own answers');
    expect(html).toContain('3 answers');
  });

  it('speak Russian, plural forms included', () => {
    const html = render('ru');
    expect(html).toContain('Ответили 3 из 4 получателей (75%)');
    expect(html).toContain('3 ответа');
    expect(html).toContain('Свои ответы');
  });
});
