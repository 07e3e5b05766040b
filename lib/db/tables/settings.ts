import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Service settings an administrator saves, one row per key ('summarization', 'alerts'). */
export const settings = pgTable('settings', {
  key: text('key').primaryKey(),
  value: jsonb('value').$type<Record<string, unknown>>().notNull(),
  secretRef: text('secret_ref'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
