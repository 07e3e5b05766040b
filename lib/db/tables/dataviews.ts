import { integer, boolean, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

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
  /** The highest series id the view gave out before its last clean or undeploy: new series get higher ids. */
  seriesIdFloor: integer('series_id_floor').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
