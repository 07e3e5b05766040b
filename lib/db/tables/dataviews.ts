import { boolean, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

export const dataViews = pgTable('data_views', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  domain: text('domain').notNull(),
  description: text('description').notNull().default(''),
  tags: text('tags').array().notNull().default([]),
  connector: text('connector').notNull(),
  definition: jsonb('definition').$type<Record<string, unknown>>().notNull(),
  deployed: boolean('deployed').notNull().default(false),
  enabled: boolean('enabled').notNull().default(false),
  schemaName: text('schema_name'),
  deployedAt: timestamp('deployed_at', { withTimezone: true }),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
