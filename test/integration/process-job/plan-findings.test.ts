/** A fanned-out run's shards take the coordinator's findings (incomplete days, measures) instead of looking again. */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataViews } from '../../../lib/db/tables/dataviews';
import type { DataViewDefinition } from '../../../lib/dataviews/definition/types';
import { readDeployedView } from '../../../lib/dataviews/scope';
import { systemCaller } from '../../../lib/identity/caller';
import { knownFindings } from '../../../lib/process-job/fan-out';
import { planRun } from '../../../lib/process-job/run';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { loadView } from '../../support/detection-fixture';
import { createDeployedView } from '../../support/pipeline-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';

const DAYS = 35;
const ymd = (t: number) => {
  const d = new Date(Date.UTC(2024, 0, 1 + t));
  return d.getUTCFullYear() * 10_000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
};

describe(`the plan's findings handed to the shards on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  let viewId: number;

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
    // Two countries with a count that varies; the last day holds a tenth of the usual amount (not all in yet).
    const rows: string[] = [];
    for (const country of ['CZ', 'SK'])
      for (let d = 0; d < DAYS; d++)
        rows.push(`(${ymd(d)}, '${country}', ${d === DAYS - 1 ? 10 : 100 + (d % 3)}, ${10 + (d % 2)})`);
    await source.exec(`CREATE TABLE findings (day integer, country text, amount double precision, cnt double precision);
      INSERT INTO findings VALUES ${rows.join(',\n')};`);
    viewId = await createDeployedView(t.db, {
      name: 'findings',
      loadQuery: 'SELECT day, country, amount, cnt FROM findings',
      categories: [{ name: 'country' }],
      countColumn: 'cnt',
    });
    const [row] = await t.db.orm.select().from(dataViews).where(eq(dataViews.id, viewId));
    const def = row.definition as unknown as DataViewDefinition;
    def.analysis = { ...def.analysis, detectors: [{ type: 'dod' }] } as DataViewDefinition['analysis'];
    await t.db.orm
      .update(dataViews)
      .set({ definition: def as unknown as Record<string, unknown> })
      .where(eq(dataViews.id, viewId));
    await loadView(t.db, source, viewId);
  });
  afterAll(async () => {
    await source?.stop();
    await t?.drop();
  });

  it('plans the same run from the findings as by looking at the data', async () => {
    const view = await readDeployedView(systemCaller(), t.db, viewId);
    const looked = await planRun(t.db, view, 1);
    expect(looked.incompleteDays).toBe(1);
    expect(looked.measures).toEqual(['value', 'count', 'ratio']);
    expect(looked.ctx.ignoreLastNDays).toBe(1);
    // Through the job detail (JSON), as the coordinator stores it.
    const detail = JSON.parse(
      JSON.stringify({ incompleteDays: looked.incompleteDays, measures: looked.measures }),
    );
    const known = knownFindings(detail);
    expect(known).toEqual({ incompleteDays: 1, measures: ['value', 'count', 'ratio'] });
    expect(await planRun(t.db, view, 1, known)).toEqual(looked);
    // Taken, not looked for: findings that are not the data's show in the plan.
    const taken = await planRun(t.db, view, 1, { incompleteDays: 0, measures: ['value'] });
    expect(taken.incompleteDays).toBe(0);
    expect(taken.ctx.ignoreLastNDays).toBe(0);
    expect(taken.measures).toEqual(['value']);
    expect(taken.shards).toEqual(looked.shards);
  });

  it('looks again when the detail does not hold whole, valid findings', () => {
    expect(knownFindings({})).toBeUndefined();
    expect(knownFindings({ incompleteDays: 0 })).toBeUndefined();
    expect(knownFindings({ measures: ['value'] })).toBeUndefined();
    expect(knownFindings({ incompleteDays: -1, measures: ['value'] })).toBeUndefined();
    expect(knownFindings({ incompleteDays: 1.5, measures: ['value'] })).toBeUndefined();
    expect(knownFindings({ incompleteDays: '1', measures: ['value'] })).toBeUndefined();
    expect(knownFindings({ incompleteDays: 0, measures: [] })).toBeUndefined();
    expect(knownFindings({ incompleteDays: 0, measures: ['count', 'count'] })).toBeUndefined();
    // A definition may choose its measures (analysis.measures): the ratio alone is a plan.
    expect(knownFindings({ incompleteDays: 0, measures: ['ratio'] })).toEqual({
      incompleteDays: 0,
      measures: ['ratio'],
    });
    expect(knownFindings({ incompleteDays: 0, measures: ['value', 'value'] })).toBeUndefined();
    expect(knownFindings({ incompleteDays: 0, measures: ['value', 'units'] })).toBeUndefined();
    expect(knownFindings({ incompleteDays: 0, measures: ['value'] })).toEqual({
      incompleteDays: 0,
      measures: ['value'],
    });
  });
});
