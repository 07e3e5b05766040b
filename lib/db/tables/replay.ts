import { integer, jsonb, pgTable, timestamp } from 'drizzle-orm/pg-core';

/** One row per replay job: the definition replayed and, once it finished, the difference it found. */
export const replays = pgTable('replays', {
  jobId: integer('job_id').primaryKey(),
  dataViewId: integer('data_view_id').notNull(),
  definition: jsonb('definition').$type<Record<string, unknown>>().notNull(),
  result: jsonb('result').$type<Record<string, unknown>>(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
