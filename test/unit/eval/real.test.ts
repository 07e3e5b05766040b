import { describe, expect, it } from 'vitest';
import { type Dataset, seriesFromRows } from '../../../scripts/eval/datasets';
import { evaluateDataset, runEngine } from '../../../scripts/eval/real';
import type { Span } from '../../../scripts/eval/score';

/** 200 days of a flat series from day 1000 with a 30-day level shift labelled on days 1100..1129. */
function dataset(): Dataset {
  const rows: [number, number][] = [];
  for (let d = 1000; d < 1200; d++) rows.push([d, d >= 1100 && d < 1130 ? 200 : 100 + (d % 7)]);
  return {
    series: seriesFromRows('page_views', 'views', rows),
    labels: [{ start: 1100, end: 1129, name: 'level_shift' }],
    labelKinds: ['level_shift'],
    kind: 'page_views',
  };
}

describe('evaluateDataset (page views checks)', () => {
  it('passes when one detector reports the shift as one anomaly and nothing else is flagged', () => {
    const byType = new Map<string, Span[]>([
      ['ChangePoint', [{ start: 1100, end: 1131, result: 'Positive', type: 'ChangePoint' }]],
      ['DOD', [{ start: 1100, end: 1100, result: 'Positive', type: 'DOD' }]],
    ]);
    const r = evaluateDataset(dataset(), { name: 'defaults', specialDates: false }, byType);
    const pass = Object.fromEntries(r.checks.map((c) => [c.name.split(' ')[0], c.pass]));
    expect(r.checks.every((c) => c.pass)).toBe(true);
    expect(pass.every).toBe(true);
    const union = r.rows.find((x) => x.kind === 'union');
    expect(union?.score.anomalies).toBe(1); // ChangePoint and DOD overlap with the same result: one event
    expect(union?.extra['long events as one']).toBe('1/1');
  });

  it('fails the checks for a fragmented shift, a false alarm and an overlong period anomaly', () => {
    const byType = new Map<string, Span[]>([
      [
        'ChangePoint',
        [
          { start: 1100, end: 1110, result: 'Positive', type: 'ChangePoint' },
          { start: 1111, end: 1129, result: 'Positive', type: 'ChangePoint' },
        ],
      ],
      ['MOM', [{ start: 1140, end: 1199, result: 'Negative', type: 'MOM' }]],
      [
        'DOD',
        [
          { start: 1060, end: 1060, result: 'Positive', type: 'DOD' },
          { start: 1075, end: 1075, result: 'Negative', type: 'DOD' },
        ],
      ],
    ]);
    const r = evaluateDataset(dataset(), { name: 'defaults', specialDates: false }, byType);
    const failed = r.checks.filter((c) => !c.pass).map((c) => c.name);
    expect(failed).toHaveLength(3);
    expect(failed.some((n) => n.startsWith('level_shift'))).toBe(true);
    expect(failed.some((n) => n.startsWith('false anomalies'))).toBe(true);
    expect(failed.some((n) => n.startsWith('no period anomaly'))).toBe(true);
  });

  it('runs the engine in process with every detector listed, even those that report nothing', () => {
    const found = runEngine(dataset(), { name: 'defaults', specialDates: false });
    expect([...found.keys()].sort()).toEqual(
      ['CW', 'ChangePoint', 'DOD', 'DT', 'Gap', 'MOM', 'MPY', 'QOQ', 'Spike', 'WOW'].sort(),
    );
  });
});
