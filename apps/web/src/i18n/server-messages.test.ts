import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { en } from './en';
import { ru } from './ru';

// The server's error details reach the console's forms as they are written (apps/web/src/app/errors.ts
// formErrors): each phrase the server can send must have a text in both languages, or a Russian
// console would show English. This reads the server's sources, so a new phrase cannot slip through.
const SERVER_SRC = path.resolve(import.meta.dirname, '../../../server/src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sources(p);
    // config.ts speaks to whoever starts the server, not to the console.
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && e.name !== 'config.ts' ? [p] : [];
  });
}

const phrases = [
  ...new Set(
    sources(SERVER_SRC).flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/message: '([^']+)'/g)].map((m) => m[1] as string)),
  ),
].filter((m) => !m.startsWith('validation.'));

describe("the server's error phrases", () => {
  it('are found in the server sources', () => {
    expect(phrases).toContain('e-mail already used');
  });

  it.each([
    ['en', en.errors.http as Record<string, string>],
    ['ru', ru.errors.http as Record<string, string>],
  ])('each has a %s text', (_lang, http) => {
    expect(phrases.filter((m) => !(m.toLowerCase() in http))).toEqual([]);
  });
});
