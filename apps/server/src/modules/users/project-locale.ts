import { type SQL, sql } from 'drizzle-orm';

/** The project's locale (general settings), which an account made without a language speaks: its mails too. */
export const projectLocale = (projectId: number): SQL =>
  sql`coalesce((SELECT p.settings->>'locale' FROM projects p WHERE p.id = ${projectId}), 'en')`;
