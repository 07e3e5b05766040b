import { integer, jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

export type JobKind = 'Load' | 'Process' | 'CustomLoad' | 'Replay';
export type JobStatus = 'pending' | 'running' | 'failed' | 'finished';

export const jobs = pgTable('jobs', {
  id: serial('id').primaryKey(),
  dataViewId: integer('data_view_id').notNull(),
  kind: text('kind').$type<JobKind>().notNull(),
  status: text('status').$type<JobStatus>().notNull().default('pending'),
  trigger: text('trigger').notNull().default('api'),
  attempts: integer('attempts').notNull().default(0),
  error: text('error'),
  detail: jsonb('detail').$type<Record<string, unknown>>().notNull().default({}),
  requestedBy: text('requested_by'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  startedAt: timestamp('started_at', { withTimezone: true }),
  finishedAt: timestamp('finished_at', { withTimezone: true }),
  /** A running attempt owns the job until then; its worker renews the lease while it works. */
  leaseUntil: timestamp('lease_until', { withTimezone: true }),
});

/** The last minute each schedule ran for (lib/jobs/schedule.ts): one tick per minute across processes. */
export const scheduleTicks = pgTable('schedule_ticks', {
  name: text('name').primaryKey(),
  lastTick: timestamp('last_tick', { withTimezone: true }).notNull(),
});
