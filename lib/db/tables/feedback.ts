import { date, integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

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

/** Feedback on an incident with the event's footprint (migration 0018; lib/feedback/event-feedback-rows.ts). */
export const eventFeedback = pgTable('event_feedback', {
  id: serial('id').primaryKey(),
  dataViewId: integer('data_view_id').notNull(),
  incidentId: integer('incident_id').notNull(),
  result: text('result').$type<'Positive' | 'Negative'>().notNull(),
  startDate: date('start_date', { mode: 'string' }).notNull(),
  endDate: date('end_date', { mode: 'string' }).notNull(),
  series: jsonb('series').notNull(),
  causes: jsonb('causes').notNull(),
  status: text('status').$type<'confirmed' | 'expected' | 'not-anomaly'>().notNull(),
  note: text('note').notNull().default(''),
  userId: integer('user_id'),
  email: text('email').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
});
