/** The process job analyses the count measure when it varies, and leaves incomplete trailing days out. */
import { sql } from 'drizzle-orm';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Container } from '../../../lib/app/container';
import { loadConfig } from '../../../lib/config/config';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { dataViews } from '../../../lib/db/tables/dataviews';
import type { DataViewDefinition } from '../../../lib/dataviews/definition/types';
import { previewDetector } from '../../../lib/series-explorer/detector-preview';
import { seriesChart } from '../../../lib/series-explorer/series-chart';
import { systemCaller } from '../../../lib/identity/caller';
import { runDetection } from '../../../lib/process-job/start';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { loadView } from '../../support/detection-fixture';
import { createDeployedView } from '../../support/pipeline-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';

const DAYS = 28; // 2024-01-01 .. 2024-01-28
const ymd = (t: number) => {
  const d = new Date(Date.UTC(2024, 0, 1 + t));
  return d.getUTCFullYear() * 10_000 + (d.getUTCMonth() + 1) * 100 + d.getUTCDate();
};

interface Row {
  series: string;
  measure: string;
  type: string;
  start_date: string;
  result: string;
  share_pct: number | null;
  change_pct: number | null;
}

describe(`measures and incomplete days in the process job on ${backendName}`, () => {
  let t: TestDatabase;
  let source: TestSource;
  const container = () => ({ db: t.db, config: loadConfig({ LOG_LEVEL: 'silent' }) }) as unknown as Container;

  /** A view over `name` (day, country, amount, cnt) with one DOD detector; values[country] = [amount, cnt] per day. */
  async function view(
    name: string,
    series: Record<string, Array<[number, number]>>,
    dodParams: Record<string, unknown> = { minVolume: 0 },
  ): Promise<number> {
    const rows: string[] = [];
    for (const [country, days] of Object.entries(series))
      for (const [d, [amount, cnt]] of days.entries())
        rows.push(`(${ymd(d)}, '${country}', ${amount}, ${cnt})`);
    await source.exec(`DROP TABLE IF EXISTS ${name}; CREATE TABLE ${name} (day integer, country text, amount double precision, cnt double precision);
      INSERT INTO ${name} VALUES ${rows.join(',\n')};`);
    const id = await createDeployedView(t.db, {
      name,
      loadQuery: `SELECT day, country, amount, cnt FROM ${name}`,
      categories: [{ name: 'country' }],
      countColumn: 'cnt',
    });
    const [row] = await t.db.orm.select().from(dataViews).where(eq(dataViews.id, id));
    const def = row.definition as unknown as DataViewDefinition;
    def.analysis = {
      ...def.analysis,
      detectors: [
        { type: 'dod', params: { percentualChange: 30, mode: 'both', useSpecialDates: false, ...dodParams } },
      ],
    } as DataViewDefinition['analysis'];
    await t.db.orm
      .update(dataViews)
      .set({ definition: def as unknown as Record<string, unknown> })
      .where(eq(dataViews.id, id));
    await loadView(t.db, source, id);
    return id;
  }

  async function stored(id: number): Promise<Row[]> {
    const s = schemaNameFor(id);
    return t.db.rows<Row>(
      sql.raw(`SELECT coalesce(m.c_country, '*') AS series, a.measure, a.type, to_char(a.start_date, 'YYYY-MM-DD') AS start_date,
        a.result, a.share_pct, a.change_pct FROM ${s}.all_anomalies a JOIN ${s}.cat_map m USING (series_id)
        ORDER BY a.measure DESC, a.start_date, 1`),
    );
  }

  /** A series with a mild weekly pattern (a noise model needs some variation to measure). */
  const weekly = [1, 1.04, 0.97, 1.02, 0.99, 1.06, 0.95];
  const flat = (amount: number, cnt: number): Array<[number, number]> =>
    Array.from({ length: DAYS }, (_, d) => [
      Math.round(amount * weekly[d % 7]),
      cnt === 1 ? 1 : Math.round(cnt * weekly[(d + 3) % 7]),
    ]);

  beforeAll(async () => {
    t = await createTestDatabase();
    source = await createTestSource();
  });
  afterAll(async () => {
    await source.stop();
    await t.drop();
  });

  it('analyses the count measure too when it varies, each record saying its measure, share % on that measure', async () => {
    // CZ: the amount triples on 2024-01-26; its count drops from about 100 to 20 on 2024-01-23 (the amount
    // stays). Detectors need about three weeks of history before they judge a day.
    const cz = flat(100, 100).map(([a, c], d): [number, number] => [d === 25 ? 300 : a, d === 22 ? 20 : c]);
    const de = flat(100, 100);
    const id = await view('both_measures', { CZ: cz, DE: de });
    const detail = await runDetection(container(), id, 7001);
    expect(detail).toMatchObject({
      measures: ['value', 'count', 'ratio'],
      incompleteDays: 0,
      incompleteFrom: null,
    });
    const rows = await stored(id);
    const value = rows.filter((r) => r.measure === 'value');
    const count = rows.filter((r) => r.measure === 'count');
    expect(value.map((r) => `${r.series} ${r.start_date} ${r.result}`)).toContain('CZ 2024-01-26 Positive');
    expect(value.every((r) => r.start_date >= '2024-01-26')).toBe(true);
    const drop = count.find((r) => r.series === 'CZ' && r.start_date === '2024-01-23');
    expect(drop).toMatchObject({ type: 'DOD', result: 'Negative' });
    // Share % of the count: 20 of the total count that day (the amount's share would be about 50 %).
    expect(drop?.share_pct).toBeCloseTo((20 / (20 + de[22][1])) * 100, 6);
    expect(drop?.change_pct ?? 0).toBeLessThan(-50);
    expect(count.every((r) => r.start_date >= '2024-01-23')).toBe(true);
    // The amount's jump on 01-26 came with no count change: no count record for it. A count that moves
    // together with the amount is the same event and is folded into the value record (next test).
    expect(count.filter((r) => r.series === 'CZ' && r.start_date === '2024-01-26')).toEqual([]);
    // The anomaly chart of a count anomaly draws the count.
    const [{ series_id }] = await t.db.rows<{ series_id: number }>(
      sql.raw(`SELECT series_id FROM ${schemaNameFor(id)}.cat_map WHERE c_country = 'CZ'`),
    );
    const chart = await seriesChart({ db: t.db }, systemCaller(), id, Number(series_id), {
      type: 'DOD',
      measure: 'count',
      dateFrom: '2024-01-23',
      dateTo: '2024-01-23',
    });
    expect(chart).toMatchObject({ measure: 'count', points: [{ date: '2024-01-23', value: 20 }] });
    await expect(
      seriesChart({ db: t.db }, systemCaller(), id, Number(series_id), { measure: 'amount' }),
    ).rejects.toMatchObject({ errors: [expect.objectContaining({ path: 'measure' })] });
  });

  it('folds a count anomaly into the value anomaly of the same event (same series, days and result)', async () => {
    // Orders and revenue triple together on 2024-01-26: one event, reported once on the value measure.
    const cz = flat(100, 100).map(([a, c], d): [number, number] => (d === 25 ? [300, 300] : [a, c]));
    const id = await view('same_event', { CZ: cz, DE: flat(100, 100) });
    const detail = await runDetection(container(), id, 7004);
    expect(detail).toMatchObject({ measures: ['value', 'count', 'ratio'] });
    const rows = (await stored(id)).filter((r) => r.series === 'CZ' && r.start_date === '2024-01-26');
    // The value per order held: no ratio record either.
    expect(rows.map((r) => `${r.measure} ${r.type} ${r.result}`)).toEqual(['value DOD Positive']);
  });

  it('judges the materiality and the noise of an amount in its events (minVolume 10 bookings a day by default)', async () => {
    // Both countries' revenue triples on 2024-01-26 with their bookings; CZ books about 3 rooms a day at
    // 1,000 each (3,000 a day: material as an amount, not as 3 bookings), DE about 100 at 1,000.
    const cz = flat(3000, 3).map(([a, c], d): [number, number] => (d === 25 ? [9000, 9] : [a, c]));
    const de = flat(100_000, 100).map(([a, c], d): [number, number] => (d === 25 ? [300_000, 300] : [a, c]));
    const id = await view('amount_events', { CZ: cz, DE: de }, {});
    await runDetection(container(), id, 7006);
    const jumps = (await stored(id)).filter((r) => r.start_date === '2024-01-26');
    expect(jumps.map((r) => `${r.series} ${r.measure}`)).toContain('DE value');
    expect(jumps.filter((r) => r.series === 'CZ')).toEqual([]);
    // The detector preview judges the same way (same inputs as the process job).
    const preview = (country: string) =>
      previewDetector({ db: t.db }, systemCaller(), id, {
        categories: { country },
        detector: { type: 'dod', params: { percentualChange: 30, useSpecialDates: false } },
      });
    const on26 = (p: Awaited<ReturnType<typeof preview>>) =>
      p.anomalies.filter((a) => a.startDate === '2024-01-26');
    expect(on26(await preview('CZ'))).toEqual([]);
    expect(on26(await preview('DE'))).toHaveLength(1);
  });

  it('does not analyse a constant count measure (one per row: 1 on the leaves, 2 on the total)', async () => {
    const cz = flat(100, 1).map(([a, c], d): [number, number] => [d === 25 ? 300 : a, c]);
    const id = await view('constant_count', { CZ: cz, DE: flat(100, 1) });
    const detail = await runDetection(container(), id, 7002);
    expect(detail).toMatchObject({ measures: ['value'] });
    const rows = await stored(id);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.measure === 'value')).toBe(true);
  });

  it('leaves an incomplete last day out of the analysis and records it; a real partial drop is still reported', async () => {
    // The last day holds a fifth of the usual rows' amounts: no −80 % anomaly on every series.
    const partial = (x: number) =>
      flat(100, 10).map(([a, c], d): [number, number] => (d === DAYS - 1 ? [x, c] : [a, c]));
    const id = await view('incomplete_last', { CZ: partial(20), DE: partial(20) });
    const detail = await runDetection(container(), id, 7003);
    expect(detail).toMatchObject({ incompleteDays: 1, incompleteFrom: '2024-01-28' });
    expect((await stored(id)).filter((r) => r.start_date === '2024-01-28')).toEqual([]);

    // Three of ten countries have no row yet on the last day: the total keeps 70 % of its expectation,
    // but clearly fewer series have data; left out as incomplete too.
    const ten: Record<string, Array<[number, number]>> = {};
    for (const c of ['AT', 'BE', 'CH', 'CZ', 'DE', 'DK', 'ES', 'FR', 'IT', 'NL'])
      ten[c] = flat(100, 10).slice(0, ['AT', 'BE', 'CH'].includes(c) ? DAYS - 1 : DAYS);
    const rows = await view('missing_rows_last', ten);
    const d1 = await runDetection(container(), rows, 7005);
    expect(d1).toMatchObject({ incompleteDays: 1, incompleteFrom: '2024-01-28' });
    expect((await stored(rows)).filter((r) => r.start_date === '2024-01-28')).toEqual([]);

    // Only CZ drops (the total keeps 3/5 of its expectation): a real drop, reported.
    const real = await view('real_drop_last', { CZ: partial(20), DE: flat(100, 10) });
    const d2 = await runDetection(container(), real, 7004);
    expect(d2).toMatchObject({ incompleteDays: 0 });
    expect((await stored(real)).map((r) => `${r.series} ${r.start_date} ${r.measure}`)).toContain(
      'CZ 2024-01-28 value',
    );
  });
});
