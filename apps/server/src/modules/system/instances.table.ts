import { boolean, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * The Atrium instances sharing this database, each keeping its row fresh while it runs: System info
 * lists them, named, with their workers. A row not refreshed for a while is an instance that died.
 */
export const instances = pgTable('instances', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  host: text('host').notNull(),
  pid: integer('pid').notNull(),
  version: text('version').notNull(),
  startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
  seenAt: timestamp('seen_at', { withTimezone: true }).notNull(),
  /** Its workers as it last reported them: [{ name, is_running, controllable }]. */
  workers: jsonb('workers').notNull(),
});

/**
 * A worker action asked of one instance by another (System info's start, stop, restart aimed at an
 * instance other than the one answering): the target carries it out and writes down the outcome.
 */
export const instanceCommands = pgTable('instance_commands', {
  id: serial('id').primaryKey(),
  instanceId: text('instance_id').notNull(),
  worker: text('worker').notNull(),
  action: text('action').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  doneAt: timestamp('done_at', { withTimezone: true }),
  /** Whether the worker runs once the action was carried out. */
  isRunning: boolean('is_running'),
});
