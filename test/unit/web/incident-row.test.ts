import { describe, expect, it } from 'vitest';
import { anomalyExplorerHref, readState } from '../../../web/src/components/explorer/model';
import { chartSeriesOf, explainsText, seriesName } from '../../../web/src/components/incident';
import type { Anomaly } from '../../../web/src/lib/types';
import { membersBySeries } from '../../../web/src/pages/incident';

const czechia = { country: 'Czechia', city: null, channel: null };
const pragueWeb = { country: 'Czechia', city: 'Prague', channel: 'web' };
const row = {
  id: 1,
  dataViewId: 1,
  dataView: 'demo / store_sales',
  seriesId: 1,
  measure: 'value',
  type: 'Spike',
  startDate: '2026-12-03',
  endDate: '2026-12-03',
  duration: 1,
  actualValue: 11_272.42,
  predictedValue: 3_505.81,
  change: 7_766.61,
  changePct: 221.5,
  changeCum: 7_766.61,
  sharePct: 3,
  recurrence: 0,
  result: 'Positive',
  categories: pragueWeb,
  sin: 3,
  sim: 1,
  comments: [],
  incidentId: 18,
  incident: {
    id: 18,
    size: 8,
    startDate: '2026-12-03',
    endDate: '2026-12-03',
    firstSeenAt: '2026-12-04T06:00:00Z',
    measures: ['value'],
    types: ['Spike'],
    broad: {
      seriesId: 1,
      categories: czechia,
      actual: 32_234.55,
      expected: 24_876.03,
      change: 7_358.52,
      changePct: 29.6,
    },
    rootCauses: [
      {
        seriesId: 7,
        categories: pragueWeb,
        actual: 11_272.42,
        expected: 3_505.81,
        change: 7_766.61,
        changePct: 221.5,
        explainsPct: 100,
        explainsNote: "a rise against a fall of the rest: 106 % of the broad series' change",
        broad: false,
      },
    ],
  },
} as unknown as Anomaly;

describe("an incident row's chart and words", () => {
  it('charts the root cause first, the broad series on demand', () => {
    expect(chartSeriesOf(row)).toEqual([
      { seriesId: 7, label: 'root cause: Czechia · Prague · web' },
      { seriesId: 1, label: 'broad series: Czechia' },
    ]);
    const plain = { ...row, incident: undefined, seriesId: 5, categories: czechia } as Anomaly;
    expect(chartSeriesOf(plain)).toEqual([{ seriesId: 5, label: 'series: Czechia' }]);
  });

  it('says what the cause explains of the broad series, and why when held at all', () => {
    const i = row.incident as NonNullable<Anomaly['incident']>;
    expect(explainsText(i.rootCauses[0], i)).toBe(
      "explains all of Czechia's +29.6 % (a rise against a fall of the rest: 106 % of the broad series' change)",
    );
    expect(seriesName({ a: null })).toBe('all');
  });

  it("opens the explorer on the row's own window", () => {
    const href = anomalyExplorerHref(row);
    const state = readState(new URLSearchParams(href.split('?')[1]));
    expect(state).toMatchObject({ windowFrom: '2026-12-03', windowTo: '2026-12-03', from: '2026-10-22' });
    expect(state.categories).toEqual({ country: 'Czechia', city: 'Prague', channel: 'web' });
  });

  it('groups an incident’s members by series, each named', () => {
    const m = (id: number, seriesId: number, categories: Record<string, string | null>) =>
      ({ ...row, id, seriesId, categories, incident: undefined }) as Anomaly;
    const groups = membersBySeries([m(1, 1, czechia), m(2, 7, pragueWeb), m(3, 1, czechia)]);
    expect(groups.map((g) => [g.name, g.records.map((r) => r.id)])).toEqual([
      ['Czechia', [1, 3]],
      ['Czechia · Prague · web', [2]],
    ]);
  });
});

describe('a share of the change in the contributions panel', () => {
  it('is read within 0–100 % or says why not', async () => {
    const { explainsOfChange, shareOfChange } = await import('../../../web/src/components/contributions');
    expect(explainsOfChange(62)).toBe('62 % of the change');
    expect(explainsOfChange(118.86)).toBe(
      'all of the change: 118.86 %, against the rest moving the other way',
    );
    expect(explainsOfChange(-5)).toMatch(/^none of the change: -5 %/);
    expect(shareOfChange(-18.86)).toBe('-18.86 % (moved against the change)');
    expect(shareOfChange(40)).toBe('40 %');
  });
});
