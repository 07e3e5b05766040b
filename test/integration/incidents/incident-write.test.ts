/** Incident rows are written as they are read back, whatever their texts hold. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ident } from '../../../lib/dataset/ddl';
import type { MemberRecord } from '../../../lib/incidents/grouping';
import {
  ensureIncidentTables,
  type IncidentRow,
  readStoredIncidents,
  writeIncidents,
} from '../../../lib/incidents/store';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';

const SCHEMA = 'dv_write_test';

const head: MemberRecord = {
  id: 1,
  seriesId: 7,
  codes: Int32Array.from([1, 0]),
  measure: 'value',
  type: 'DT',
  result: 'Negative',
  startDay: 19_800,
  endDay: 19_802,
  actualValue: 1,
  predictedValue: 2,
  changeCum: -3,
  sin: 1,
};

/** Texts a category value may hold: quotes, backslashes, the list separators, braces, a literal NULL. */
const ODD = ['O"Brien \\ Sons', 'a,b', 'line\nbreak', '{x}', 'NULL', 'Zürich ✓', ''];

function row(value: string, i: number): IncidentRow {
  const categories = { store: value, channel: null };
  return {
    id: null,
    result: 'Negative',
    measures: ['value', 'count'],
    types: ['DT', 'Gap'],
    startDay: 19_800,
    endDay: 19_802 + i,
    size: 2,
    broad: { seriesId: 7, categories, actual: 1.5, expected: 2.25, change: -0.75, changePct: null },
    rootCauses: [
      {
        seriesId: null,
        categories,
        actual: 1,
        expected: 2,
        change: -1,
        changePct: -50,
        explainsPct: 100,
        broad: false,
      },
    ],
    head,
    memberKeys: [`7:value:DT:2024-03-18`, `7:count:Gap:2024-03-${10 + i}`],
    memberIds: [i + 1],
    firstSeenAt: i % 2 ? '2024-01-02T03:04:05.000Z' : null,
    firstSeenJob: i % 2 ? 5 : null,
    explainedFrom: `hash"${value}`,
  };
}

describe(`writing incidents on ${backendName}`, () => {
  let t: TestDatabase;

  beforeAll(async () => {
    t = await createTestDatabase();
    const s = ident(SCHEMA);
    await t.db.rows(sql.raw(`CREATE SCHEMA ${s}`));
    await t.db.rows(sql.raw(`CREATE TABLE ${s}.all_anomalies (id serial PRIMARY KEY)`));
    await t.db.rows(sql.raw(`INSERT INTO ${s}.all_anomalies SELECT generate_series(1, ${ODD.length})`));
    await ensureIncidentTables(t.db, SCHEMA);
  }, 60_000);

  afterAll(async () => {
    await t?.drop();
  });

  it('reads back every text, list and number as it was written', async () => {
    const rows = ODD.map(row);
    const ids = await writeIncidents(t.db, SCHEMA, rows, 9);
    const stored = new Map((await readStoredIncidents(t.db, SCHEMA)).map((r) => [r.id, r]));
    rows.forEach((r, i) => {
      const got = stored.get(ids[i]);
      expect(got?.broad).toEqual(r.broad);
      expect(got?.rootCauses).toEqual(r.rootCauses);
      expect(got?.memberKeys).toEqual(r.memberKeys);
      expect(got?.explainedFrom).toBe(r.explainedFrom);
      expect(got?.firstSeenJob).toBe(r.firstSeenAt === null ? 9 : 5);
      if (r.firstSeenAt !== null) expect(got?.firstSeenAt).toBe(r.firstSeenAt);
    });
    const [one] = await t.db.rows<{ measures: string[]; types: string[]; end_date: string }>(
      sql.raw(
        `SELECT measures, types, to_char(end_date, 'YYYY-MM-DD') AS end_date FROM ${ident(SCHEMA)}.incidents WHERE id = ${ids[1]}`,
      ),
    );
    expect(one).toEqual({ measures: ['value', 'count'], types: ['DT', 'Gap'], end_date: '2024-03-21' });
  });
});
