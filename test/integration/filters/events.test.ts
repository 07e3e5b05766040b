/** Events across detectors, measures and comments of a record's own dates, through the anomaly query on the database. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnomalyDeps } from '../../../lib/anomalies/run';
import { runFilterDefinition } from '../../../lib/anomalies/run';
import { membersParam, queryAnomalies } from '../../../lib/anomalies/use-cases';
import type { FilterDefinition } from '../../../lib/filters/types';
import type { Caller } from '../../../lib/identity/caller';
import { fixedClock } from '../../../lib/shared/clock';
import { backendName, createTestDatabase, type TestDatabase } from '../../support/db';
import { addAnomalies, addComment, createCaller, createView, type TestView } from './fixtures';

describe(`events, measures and comments in filter results on ${backendName}`, () => {
  let t: TestDatabase;
  let deps: AnomalyDeps;
  let admin: Caller;
  let view: TestView;
  const de = { Country: 'DE' };
  const fr = { Country: 'FR' };
  const custom = { timeRange: 'Custom', dateFrom: '2024-03-01', dateTo: '2024-03-31' } as const;
  const run = (body: Partial<FilterDefinition>, members = false) =>
    runFilterDefinition(deps, admin, { ...custom, ...body }, true, { members });

  beforeAll(async () => {
    t = await createTestDatabase();
    deps = { db: t.db, clock: fixedClock('2024-04-10T12:00:00Z'), timeZone: 'UTC' };
    admin = await createCaller(t.db, 'admin@example.com', 'admin');
    view = await createView(t.db, { domain: 'sales', name: 'orders', categories: ['Country'] });
    await addAnomalies(t.db, view, [
      // One event on DE: DT, Spike and Cardinality on the same days.
      { type: 'DT', startDate: '2024-03-10', endDate: '2024-03-11', sin: 2.0, categories: de },
      { type: 'Spike', startDate: '2024-03-11', sin: 3.0, changePct: 80, categories: de },
      { type: 'Cardinality', startDate: '2024-03-10', sin: 1.0, categories: de },
      // The count measure of the same series and days: another event.
      { type: 'DOD', measure: 'count', startDate: '2024-03-11', sin: 2.5, categories: de },
      // FR: two separate days.
      { type: 'DOD', startDate: '2024-03-20', sin: 1.5, categories: fr },
      { type: 'DOD', startDate: '2024-03-25', sin: 1.2, categories: fr },
      // A long MOM on FR through March: overlaps both FR days, so with them it is one event.
      { type: 'MOM', startDate: '2024-03-01', endDate: '2024-03-31', sin: 0.5, categories: fr },
    ]);
  });
  afterAll(() => t.drop());

  it('answers one record per type when the body does not ask for events (existing clients)', async () => {
    const answer = await run({ sortBy: 'SIN', limit: 3 });
    expect(answer.anomalies.map((a) => a.type)).toEqual(['Spike', 'DOD', 'DT']);
    expect(answer.anomalies.every((a) => a.types === undefined && a.members === undefined)).toBe(true);
    expect(answer.anomalies.map((a) => a.measure)).toEqual(['value', 'count', 'value']);
  });

  it('with mergeEvents shows each event once with its types, the strongest record’s figures, the Top N on events', async () => {
    const answer = await run({ sortBy: 'SIN', limit: 3, mergeEvents: true });
    expect(answer.anomalies.map((a) => [a.type, a.measure, a.types])).toEqual([
      ['Spike', 'value', ['Spike', 'Cardinality', 'DT']],
      ['DOD', 'count', ['DOD']],
      ['DOD', 'value', ['DOD', 'MOM']],
    ]);
    expect(answer.anomalies[0]).toMatchObject({ sin: 3, changePct: 80, startDate: '2024-03-11' });
    expect(answer.anomalies.every((a) => a.members === undefined)).toBe(true);
    const withMembers = await run({ sortBy: 'SIN', limit: 3, mergeEvents: true }, true);
    expect(withMembers.anomalies[0].members?.map((m) => m.type)).toEqual(['Spike', 'DT', 'Cardinality']);
    expect(withMembers.anomalies[2].members?.map((m) => m.type)).toEqual(['DOD', 'DOD', 'MOM']);
    // Sorting by another key ranks the events by their strongest record's figure.
    const byDate = await run({ sortBy: 'Date', limit: 10, mergeEvents: true });
    expect(byDate.anomalies.map((a) => a.startDate)).toEqual(['2024-03-20', '2024-03-11', '2024-03-11']);
  });

  it('aggregates events, never mixing measures', async () => {
    const answer = await run({ mergeEvents: true, isAggregated: true, limit: 10 });
    const aggregates = answer.aggregates ?? [];
    expect(aggregates.reduce((n, g) => n + g.n, 0)).toBe(3);
    for (const g of aggregates)
      expect(new Set(g.members.map((m) => m.measure))).toEqual(new Set([g.measure]));
  });

  it('selects measures', async () => {
    const count = await run({ measures: 'count', limit: 10 });
    expect(count.anomalies.map((a) => `${a.type} ${a.measure}`)).toEqual(['DOD count']);
    const value = await run({ measures: 'value', limit: 10 });
    expect(value.anomalies).toHaveLength(6);
    await expect(run({ measures: 'amount' })).rejects.toMatchObject({
      errors: [expect.objectContaining({ path: 'measures' })],
    });
  });

  it('attaches the comments of a record’s own dates, also outside the filter window', async () => {
    // A view-wide comment of March 3-4 and a DE comment of March 11; the filter covers March 25-31 only.
    await addComment(t.db, {
      dataViewId: view.id,
      text: 'price change',
      dateFrom: '2024-03-03',
      dateTo: '2024-03-04',
    });
    await addComment(t.db, {
      dataViewId: view.id,
      text: 'DE promo',
      dateFrom: '2024-03-11',
      dateTo: '2024-03-11',
      categories: { Country: 'DE' },
    });
    const answer = await runFilterDefinition(
      deps,
      admin,
      { timeRange: 'Custom', dateFrom: '2024-03-25', dateTo: '2024-03-31', sortBy: 'Date', limit: 10 },
      true,
    );
    const mom = answer.anomalies.find((a) => a.type === 'MOM');
    expect(mom?.comments.map((c) => c.text)).toEqual(['price change']);
    const day = answer.anomalies.find((a) => a.type === 'DOD');
    expect(day?.comments).toEqual([]);
    // Members of an event carry their own comments.
    const events = await run({ mergeEvents: true, limit: 10 }, true);
    const spike = events.anomalies.find((a) => a.type === 'Spike');
    expect(spike?.comments.map((c) => c.text)).toEqual(['DE promo']);
    expect(spike?.members?.find((m) => m.type === 'DT')?.comments.map((c) => c.text)).toEqual(['DE promo']);
  });

  it('reads members=true|false from the query string and refuses anything else', async () => {
    expect(membersParam({ members: 'true' })).toEqual({ members: true });
    expect(membersParam({})).toEqual({ members: false });
    expect(() => membersParam({ members: 'maybe' })).toThrow(/members/);
    const answer = await queryAnomalies(
      deps,
      admin,
      { ...custom, mergeEvents: true, limit: 1 },
      { members: true },
    );
    expect(answer.anomalies[0].members?.length).toBe(3);
  });
});
