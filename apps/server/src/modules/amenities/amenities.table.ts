import { sql } from 'drizzle-orm';
import { bigint, date, index, integer, jsonb, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { accessRules, identifiers } from '../access/access.table.js';
import { groups } from '../groups/groups.table.js';
import { projects } from '../projects/projects.table.js';
import { users } from '../users/users.table.js';

/** Amenities: bookable facilities (a gym, a laundry) with their persons limits and week of time slots. */
export const amenities = pgTable(
  'amenities',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    address: text('address'),
    description: text('description'),
    personsMin: integer('persons_min').notNull().default(1),
    personsMax: integer('persons_max').notNull().default(500),
    slotDuration: integer('slot_duration').notNull().default(3600),
    slotItems: jsonb('slot_items').$type<{ days: string[]; from: number; to: number }[]>().notNull().default(sql`'[]'::jsonb`),
    imagePath: text('image_path'),
    termsPath: text('terms_path'),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('amenities_project_name').on(t.projectId, t.name, t.id)],
);

/** The groups whose residents may book an amenity (and the ACL scopes speak of). */
export const amenityDomains = pgTable(
  'amenity_domains',
  {
    amenityId: integer('amenity_id')
      .notNull()
      .references(() => amenities.id, { onDelete: 'cascade' }),
    groupId: integer('group_id')
      .notNull()
      .references(() => groups.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.amenityId, t.groupId] }), index('amenity_domains_group').on(t.groupId)],
);

/** The access rules whose doors a reservation's QR opens. */
export const amenityAccessRules = pgTable(
  'amenity_access_rules',
  {
    amenityId: integer('amenity_id')
      .notNull()
      .references(() => amenities.id, { onDelete: 'cascade' }),
    ruleId: integer('rule_id')
      .notNull()
      .references(() => accessRules.id, { onDelete: 'cascade' }),
  },
  (t) => [primaryKey({ columns: [t.amenityId, t.ruleId] }), index('amenity_access_rules_rule').on(t.ruleId)],
);

/**
 * Reservations: consecutive slots of an amenity on a date (the wall clock `user_offset` minutes east
 * of UTC), and the QR identifier that opens its doors from `starts_at` to `ends_at`.
 */
export const amenityReservations = pgTable(
  'amenity_reservations',
  {
    id: serial('id').primaryKey(),
    projectId: integer('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    amenityId: integer('amenity_id')
      .notNull()
      .references(() => amenities.id, { onDelete: 'cascade' }),
    userId: integer('user_id').references(() => users.id, { onDelete: 'set null' }),
    identifierId: integer('identifier_id').references(() => identifiers.id, { onDelete: 'set null' }),
    date: date('date', { mode: 'string' }).notNull(),
    numberOfPersons: integer('number_of_persons').notNull(),
    timeSlots: jsonb('time_slots').$type<{ from: number; to: number }[]>().notNull(),
    userOffset: integer('user_offset').notNull().default(0),
    startsAt: timestamp('starts_at', { withTimezone: true }).notNull(),
    endsAt: timestamp('ends_at', { withTimezone: true }).notNull(),
    status: text('status').notNull().default('reserved'),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('amenity_reservations_amenity_date').on(t.amenityId, t.date),
    index('amenity_reservations_project_created').on(t.projectId, t.createdAt, t.id),
    index('amenity_reservations_user').on(t.userId),
    index('amenity_reservations_status_starts').on(t.status, t.startsAt),
    index('amenity_reservations_status_ends').on(t.status, t.endsAt),
  ],
);

/** What happened to a reservation: made, changed, cancelled, moved by time. */
export const amenityReservationLogs = pgTable(
  'amenity_reservation_logs',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    reservationId: integer('reservation_id')
      .notNull()
      .references(() => amenityReservations.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    info: jsonb('info').$type<Record<string, unknown>>().notNull().default(sql`'{}'::jsonb`),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('amenity_reservation_logs_reservation').on(t.reservationId, t.createdAt)],
);
