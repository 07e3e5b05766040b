import { integer, jsonb, pgTable, primaryKey, serial, text, timestamp } from 'drizzle-orm/pg-core';

export const filters = pgTable('filters', {
  id: serial('id').primaryKey(),
  ownerId: integer('owner_id').notNull(),
  name: text('name').notNull(),
  settings: jsonb('settings').$type<Record<string, unknown>>().notNull(),
  summaryText: text('summary_text'),
  summaryGeneratedAt: timestamp('summary_generated_at', { withTimezone: true }),
  summaryMeta: jsonb('summary_meta').$type<Record<string, unknown>>(),
  summaryError: text('summary_error'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const filterShares = pgTable('filter_shares', {
  filterId: integer('filter_id').notNull(),
  userId: integer('user_id').notNull(),
});

export const filterPins = pgTable('filter_pins', {
  filterId: integer('filter_id').notNull(),
  userId: integer('user_id').notNull(),
});

export const filterRecipientSummaries = pgTable(
  'filter_recipient_summaries',
  {
    filterId: integer('filter_id').notNull(),
    userId: integer('user_id').notNull(),
    summaryText: text('summary_text'),
    summaryGeneratedAt: timestamp('summary_generated_at', { withTimezone: true }),
    summaryMeta: jsonb('summary_meta').$type<Record<string, unknown>>(),
    summaryError: text('summary_error'),
  },
  (t) => [primaryKey({ columns: [t.filterId, t.userId] })],
);
