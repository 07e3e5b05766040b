import { date, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

/** Feedback on the stable key of an anomaly record (view, series, measure, type, start date). */
export const anomalyFeedback = pgTable('anomaly_feedback', {
  id: serial('id').primaryKey(),
  dataViewId: integer('data_view_id').notNull(),
  seriesId: integer('series_id').notNull(),
  measure: text('measure').$type<'value' | 'count' | 'ratio'>().notNull(),
  type: text('type').notNull(),
  startDate: date('start_date', { mode: 'string' }).notNull(),
  endDate: date('end_date', { mode: 'string' }).notNull(),
  status: text('status').$type<'confirmed' | 'expected' | 'not-anomaly'>().notNull(),
  note: text('note').notNull().default(''),
  userId: integer('user_id'),
  email: text('email').notNull(),
  /** The incident the feedback was given on, when it was (migration 0015). */
  incidentId: integer('incident_id'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
