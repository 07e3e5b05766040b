import {
  boolean,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
} from 'drizzle-orm/pg-core';

export const alertSubscriptions = pgTable('alert_subscriptions', {
  id: serial('id').primaryKey(),
  filterId: integer('filter_id').notNull(),
  /** Unique per user, any case (migration 0017): the identity configuration as code finds it by. */
  name: text('name').notNull(),
  userId: integer('user_id').notNull(),
  channel: text('channel').$type<'webhook' | 'slack' | 'email'>().notNull(),
  target: text('target').notNull(),
  secretRef: text('secret_ref'),
  mode: text('mode').$type<'immediate' | 'daily' | 'weekly'>().notNull().default('immediate'),
  digestHour: smallint('digest_hour').notNull().default(8),
  digestWeekday: smallint('digest_weekday').notNull().default(1),
  enabled: boolean('enabled').notNull().default(true),
  lastDigestAt: timestamp('last_digest_at', { withTimezone: true }),
  lastSentAt: timestamp('last_sent_at', { withTimezone: true }),
  lastError: text('last_error'),
  lastErrorAt: timestamp('last_error_at', { withTimezone: true }),
  failedDeliveries: integer('failed_deliveries').notNull().default(0),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

export const alertDeliveries = pgTable('alert_deliveries', {
  id: serial('id').primaryKey(),
  subscriptionId: integer('subscription_id').notNull(),
  kind: text('kind').$type<'immediate' | 'digest' | 'test'>().notNull(),
  payload: jsonb('payload').$type<Record<string, unknown>>().notNull(),
  status: text('status').$type<'pending' | 'sent' | 'failed'>().notNull().default('pending'),
  attempts: integer('attempts').notNull().default(0),
  nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
  lastError: text('last_error'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  sentAt: timestamp('sent_at', { withTimezone: true }),
});

export const alertSentRecords = pgTable(
  'alert_sent_records',
  {
    subscriptionId: integer('subscription_id').notNull(),
    recordKey: text('record_key').notNull(),
    record: jsonb('record').$type<Record<string, unknown>>().notNull(),
    deliveryId: integer('delivery_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.subscriptionId, t.recordKey] })],
);
