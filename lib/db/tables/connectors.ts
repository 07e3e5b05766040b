import { jsonb, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

export const connectors = pgTable('connectors', {
  id: serial('id').primaryKey(),
  name: text('name').notNull(),
  type: text('type').notNull(),
  description: text('description').notNull().default(''),
  secretRef: text('secret_ref').notNull(),
  maskedConfiguration: jsonb('masked_configuration').$type<Record<string, unknown>>().notNull(),
  status: text('status').$type<'untested' | 'active' | 'failed'>().notNull().default('untested'),
  lastTestedAt: timestamp('last_tested_at', { withTimezone: true }),
  lastTestMessage: text('last_test_message'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});
