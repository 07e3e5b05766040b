import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnomalyDeps } from '../../../lib/anomalies/run';
import { runFilterDefinition } from '../../../lib/anomalies/run';
import { queryAnomalies } from '../../../lib/anomalies/use-cases';
import { parseFilterSettings } from '../../../lib/filters/parse';
import { sortKey } from '../../../lib/filters/rank';
import { runFilter } from '../../../lib/filters/run';
import { scopeAnomalies } from '../../../lib/filters/select';
import { type AnomalyRecord, type FilterDefinition, SORT_BY_VALUES } from '../../../lib/filters/types';
import type { Caller } from '../../../lib/identity/caller';
import { fixedClock } from '../../../lib/shared/clock';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import {
  addAnomalies,
  addComment,
  addDays,
  createCaller,
  createView,
  type StoredAnomaly,
  type TestView,
} from './fixtures';

function mulberry32(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Varied anomalies with ties, nulls and a NaN, so ordering and bounds meet every edge. */
function generate(seed: number, n: number, withCountry: boolean): StoredAnomaly[] {
  const rnd = mulberry32(seed);
  // `|| 0` turns -0 into 0, which the database cannot keep apart anyway.
  const maybe = (v: number) => (rnd() < 0.1 ? null : v || 0);
  const types = ['DOD', 'WOW', 'Spike', 'MOM'];
  return Array.from({ length: n }, (_, i) => {
    // Anomalies 3 and 5 carry a NaN measure and lie inside the searched window.
    const start = i === 3 || i === 5 ? '2024-03-01' : addDays('2024-02-01', Math.floor(rnd() * 60));
    const change = Math.round((rnd() - 0.5) * 40) || 0;
    return {
      type: types[Math.floor(rnd() * types.length)],
      startDate: start,
      endDate: addDays(start, Math.floor(rnd() * 4)),
      actualValue: maybe(Math.round(rnd() * 50)),
      predictedValue: maybe(Math.round(rnd() * 50)),
      change: maybe(change),
      changePct: i === 3 ? Number.NaN : maybe(Math.round((rnd() - 0.5) * 60)),
      changeCum: maybe(Math.round((rnd() - 0.5) * 100)),
      sharePct: i === 5 ? Number.NaN : maybe(Math.round(rnd() * 20)),
      recurrence: Math.floor(rnd() * 4),
      result: change < 0 ? 'Negative' : 'Positive',
      sin: maybe(Math.round(rnd() * 5)),
      sim: maybe(Math.round(rnd() * 10) / 10),
      categories: {
        Region: rnd() < 0.2 ? null : `R${1 + Math.floor(rnd() * 2)}`,
        ...(withCountry ? { Country: rnd() < 0.3 ? null : `C${1 + Math.floor(rnd() * 4)}` } : {}),
      },
    };
  });
}

describe(`running filters over stored anomalies on ${backendName}`, () => {
  let t: TestDatabase;
  let deps: AnomalyDeps;
  let admin: Caller;
  let orders: TestView;
  let returns: TestView;
  let all: AnomalyRecord[];
  const window = { dateFrom: '2024-02-10', dateTo: '2024-03-20' };
  const custom = { timeRange: 'Custom', ...window } as const;

  beforeAll(async () => {
    t = await createTestDatabase();
    deps = { db: t.db, clock: fixedClock('2024-04-10T12:00:00Z'), timeZone: 'UTC' };
    admin = await createCaller(t.db, 'admin@example.com', 'admin');
    orders = await createView(t.db, { domain: 'sales', name: 'orders', categories: ['Region', 'Country'] });
    returns = await createView(t.db, { domain: 'sales', name: 'returns', categories: ['Region'] });
    await createView(t.db, { domain: 'sales', name: 'draft', categories: ['Region'], deployed: false });
    all = [
      ...(await addAnomalies(t.db, orders, generate(1, 90, true))),
      ...(await addAnomalies(t.db, returns, generate(2, 70, false))),
    ];
  });
  afterAll(() => t.drop());

  /** What the pure domain answers over the same anomalies: the specification of the SQL path. */
  function reference(body: Partial<FilterDefinition>, viewIds = [orders.id, returns.id]) {
    const settings = parseFilterSettings(body);
    return runFilter(scopeAnomalies(all, { dataViewIds: viewIds, ...window }), settings);
  }

  const run = (body: Partial<FilterDefinition>, caller = admin) =>
    runFilterDefinition(deps, caller, { ...custom, ...body }, true);

  for (const sortBy of SORT_BY_VALUES) {
    it(`orders descending by ${sortBy} and keeps the Top N across data views`, async () => {
      const answer = await run({ sortBy, limit: 9 });
      expect(answer.anomalies).toHaveLength(9);
      const keys = answer.anomalies.map((a) => sortKey(a, sortBy));
      for (let i = 1; i < keys.length; i++) expect(keys[i]).toBeLessThanOrEqual(keys[i - 1]);
      expect(answer.anomalies).toEqual(reference({ ...custom, sortBy, limit: 9 }).anomalies);
      // One view alone: its SQL Top N is the answer, with no other view to make up for a wrong cut.
      const single = await run({ sortBy, limit: 9, dataViews: 'sales / orders' });
      expect(single.anomalies).toEqual(reference({ ...custom, sortBy, limit: 9 }, [orders.id]).anomalies);
    });
  }

  it('keeps the Top N of each type with split by type', async () => {
    const answer = await run({ sortBy: 'Change', limit: 3, splitByType: true });
    expect(answer.anomalies).toEqual(
      reference({ ...custom, sortBy: 'Change', limit: 3, splitByType: true }).anomalies,
    );
    const perType = new Map<string, number>();
    for (const a of answer.anomalies) perType.set(a.type, (perType.get(a.type) ?? 0) + 1);
    expect([...perType.values()]).toEqual([3, 3, 3, 3]);
  });

  const selections: Array<[string, Partial<FilterDefinition>]> = [
    ['types ignoring case', { anomalyTypes: 'spike;dod' }],
    ['the result sign', { anomalyResult: 'Negative' }],
    ['category constraints', { categoriesFilter: 'Region=R1;Country=C2' }],
    ['recurrence bounds', { recurrenceFrom: 1, recurrenceTo: 2 }],
    ['change % by magnitude', { changePctFrom: 20 }],
    ['change by magnitude', { changeFrom: 5, changeTo: 15 }],
    ['share % bounds', { sharePctTo: 10 }],
  ];
  for (const [what, body] of selections) {
    it(`selects by ${what} exactly as applyFilter does`, async () => {
      const answer = await run({ ...body, sortBy: 'SIN', limit: 10_000 });
      const expected = reference({ ...custom, ...body, sortBy: 'SIN', limit: 10_000 }).anomalies;
      expect(expected.length).toBeGreaterThan(0);
      expect(expected.length).toBeLessThan(all.length);
      expect(answer.anomalies).toEqual(expected);
    });
  }

  it('reads only the named data views, and a view lacking a constrained category has no anomaly', async () => {
    const named = await run({ dataViews: 'sales / returns', limit: 10_000 });
    expect(new Set(named.anomalies.map((a) => a.dataView))).toEqual(new Set(['sales / returns']));
    const lacking = await run({ dataViews: 'sales / returns', categoriesFilter: 'Country=C1' });
    expect(lacking.anomalies).toEqual([]);
    expect(lacking.warnings.join(' ')).toContain('has no category Country');
  });

  it('includes anomalies overlapping the window, also those that started before it', async () => {
    const answer = await run({ limit: 10_000 });
    const before = all.filter((a) => a.startDate < window.dateFrom && a.endDate >= window.dateFrom);
    expect(before.length).toBeGreaterThan(0);
    const got = new Set(answer.anomalies.map((a) => `${a.dataViewId}:${a.id}`));
    for (const a of before) expect(got.has(`${a.dataViewId}:${a.id}`)).toBe(true);
    for (const a of answer.anomalies) {
      expect(a.startDate <= window.dateTo && a.endDate >= window.dateFrom).toBe(true);
    }
  });

  it('aggregates every selected anomaly, not only the Top N', async () => {
    const body = { isAggregated: true, minCommonCategories: 1, sortBy: 'SIN', limit: 2 } as const;
    const answer = await run(body);
    expect(answer.anomalies).toHaveLength(2);
    const expected = reference({ ...custom, ...body });
    expect(answer.aggregates).toEqual(expected.aggregates);
    const members = (await run({ sortBy: 'SIN', limit: 10_000 })).anomalies.length;
    // The Top N of aggregates is cut too, so compare against an uncut run.
    const uncut = await run({ ...body, limit: 10_000 });
    expect(uncut.aggregates!.reduce((n, g) => n + g.n, 0)).toBe(members);
  });

  it('limits a data user to assigned data views and refuses an unassigned one in unsaved settings', async () => {
    const user = await createCaller(t.db, 'user@example.com', 'data-user', [orders.id]);
    const answer = await run({ limit: 10_000 }, user);
    expect(answer.dataViews).toEqual([{ id: orders.id, dataView: 'sales / orders' }]);
    expect(answer.anomalies).toEqual(reference({ ...custom, limit: 10_000 }, [orders.id]).anomalies);
    const refused = queryAnomalies(deps, user, { ...custom, dataViews: 'sales / orders;sales / returns' });
    await expect(refused).rejects.toMatchObject({
      code: 'VALIDATION',
      errors: [{ path: 'dataViews', message: "data view 'sales / returns' is unknown or not accessible" }],
    });
  });

  it('skips unknown and invisible data views of a saved filter with warnings', async () => {
    const user = await createCaller(t.db, 'other@example.com', 'data-user', [orders.id]);
    const body = { ...custom, dataViews: 'sales / orders;sales / returns;sales / nothing;sales / draft' };
    const answer = await runFilterDefinition(deps, user, body, false);
    expect(answer.dataViews.map((v) => v.dataView)).toEqual(['sales / orders']);
    expect(answer.warnings).toEqual([
      "Data view 'sales / returns' is unknown or not accessible; it was skipped.",
      "Data view 'sales / nothing' is unknown or not accessible; it was skipped.",
      "Data view 'sales / draft' is unknown or not accessible; it was skipped.",
    ]);
    const asAdmin = await runFilterDefinition(deps, admin, body, false);
    expect(asAdmin.warnings).toContain("Data view 'sales / draft' is not deployed; it has no anomalies.");
  });

  it('attaches the matching comments to every record', async () => {
    const target = all.find(
      (a) => a.dataViewId === orders.id && a.categories.Country === 'C3' && a.startDate >= window.dateFrom,
    )!;
    const scoped = await addComment(t.db, {
      dataViewId: orders.id,
      text: 'Campaign in C3',
      dateFrom: target.startDate,
      dateTo: target.startDate,
      categories: { Country: 'C3', Region: null },
    });
    const wide = await addComment(t.db, {
      dataViewId: returns.id,
      text: 'Outage',
      dateFrom: '2024-01-01',
      dateTo: '2024-12-31',
    });
    const answer = await run({ limit: 10_000 });
    for (const a of answer.anomalies) {
      const ids = a.comments.map((c) => c.id);
      const expectScoped =
        a.dataViewId === orders.id &&
        a.categories.Country === 'C3' &&
        a.startDate <= target.startDate &&
        a.endDate >= target.startDate;
      expect(ids.includes(scoped)).toBe(expectScoped);
      expect(ids.includes(wide)).toBe(a.dataViewId === returns.id);
    }
    const hit = answer.anomalies.find((a) => a.id === target.id && a.dataViewId === orders.id)!;
    expect(hit.comments[0]).toMatchObject({
      text: 'Campaign in C3',
      categories: { Country: 'C3', Region: null },
    });
  });
});
