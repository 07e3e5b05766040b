/** Migration 0009: all_anomalies of views deployed before anomalies had a measure get the column, as value. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import anomalyMeasure from '../../../lib/db/migrations/0009-anomaly-measure';
import { createTestDatabase, type TestDatabase } from '../../support/db';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.drop();
});

it('adds measure = value to every deployed view, and can run again', async () => {
  await t.db.rows(sql.raw('CREATE SCHEMA dv_9077'));
  await t.db.rows(sql.raw('CREATE TABLE dv_9077.all_anomalies (id serial PRIMARY KEY, type text NOT NULL)'));
  await t.db.rows(sql.raw(`INSERT INTO dv_9077.all_anomalies (type) VALUES ('DOD')`));
  const statement = anomalyMeasure.trim().replace(/;$/, '');
  await t.db.rows(sql.raw(statement));
  await t.db.rows(sql.raw(statement));
  expect(await t.db.rows(sql.raw('SELECT type, measure FROM dv_9077.all_anomalies'))).toEqual([
    { type: 'DOD', measure: 'value' },
  ]);
  await t.db.rows(sql.raw('DROP SCHEMA dv_9077 CASCADE'));
});
