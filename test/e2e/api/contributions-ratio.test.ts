/**
 * The causes of a ratio through HTTP: GET …/contributions?measure=ratio splits the change of value per event
 * into each value's rate and mix effects (summing to the change), and names the hotel whose rate moved, or
 * says that the mix moved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../../support/db';
import { loadedDetectionView, type SourceSeries } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { startTestService, type TestService } from '../../support/service';
import { makeNormal, makeRng } from '../../../scripts/synthetic/rng';

type Json = Record<string, any>;
const DAYS = 91; // 2024-01-01 .. 2024-03-31
const RATE_CUT = { hotel: 'Harbour', from: 42, to: 48, dateFrom: '2024-02-12', dateTo: '2024-02-18' };
const MIX = { hotel: 'Palace', from: 77, to: 83, dateFrom: '2024-03-18', dateTo: '2024-03-24' };

function series(): SourceSeries[] {
  const normal = makeNormal(makeRng(11));
  const out: SourceSeries[] = [];
  for (const [hotel, rate, nights] of [
    ['Harbour', 120, 60],
    ['Garden', 90, 80],
    ['Palace', 260, 30],
  ] as const)
    for (const [channel, share] of [
      ['web', 0.6],
      ['phone', 0.4],
    ] as const) {
      const counts: number[] = [];
      const values: number[] = [];
      for (let t = 0; t < DAYS; t++) {
        const mix = hotel === MIX.hotel && t >= MIX.from && t <= MIX.to ? 3 : 1;
        const n = Math.max(1, Math.round(nights * share * mix + normal() * Math.sqrt(nights * share)));
        const cut = hotel === RATE_CUT.hotel && t >= RATE_CUT.from && t <= RATE_CUT.to ? 0.7 : 1;
        counts.push(n);
        values.push(Math.round(n * rate * cut * (1 + 0.02 * normal())));
      }
      out.push({ categories: { hotel, channel }, values, counts });
    }
  return out;
}

describe(`contributions of a ratio on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let view: number;
  const contributions = (q: string) =>
    s.call('GET', `/api/v1/dataviews/${view}/contributions?measure=ratio&${q}`, { auth: s.adminToken });

  beforeAll(async () => {
    s = await startTestService();
    source = await createTestSource();
    view = await loadedDetectionView(s.testDb.db, source, {
      name: 'hotel_rates',
      categories: [{ name: 'hotel' }, { name: 'channel' }],
      detectors: [{ type: 'dod' }],
      series: series(),
    });
  }, 120_000);
  afterAll(async () => {
    await source?.stop();
    await s?.stop();
  });

  const sumOf = (d: Json, f: (v: Json) => number) => d.values.reduce((acc: number, v: Json) => acc + f(v), 0);

  it('splits a rate cut into rate effects and names the hotel whose rate moved', async () => {
    const r = await contributions(`from=${RATE_CUT.dateFrom}&to=${RATE_CUT.dateTo}`);
    expect(r.status, r.text).toBe(200);
    const body = r.body as Json;
    expect(body.measure).toBe('ratio');
    expect(body.change).toBeLessThan(0);
    // Per event: about 150 expected, the cut takes about a tenth of it.
    expect(body.expected).toBeGreaterThan(100);
    expect(body.rateEffect + body.mixEffect).toBeCloseTo(body.change, 6);
    expect(Math.abs(body.rateEffect)).toBeGreaterThan(Math.abs(body.mixEffect));
    const hotel = body.dimensions.find((d: Json) => d.name === 'hotel');
    expect(hotel.values[0]).toMatchObject({ value: 'Harbour' });
    expect(hotel.values[0].rateEffect).toBeLessThan(0);
    expect(sumOf(hotel, (v) => v.rateEffect + v.mixEffect)).toBeCloseTo(body.change, 6);
    expect(sumOf(hotel, (v) => v.explainsPct)).toBeCloseTo(100, 6);
    expect(body.explanation.broad).toBe(false);
    expect(body.explanation.causes[0]).toMatchObject({
      effect: 'rate',
      categories: { hotel: 'Harbour', channel: null },
    });
    expect(body.explanation.causes.some((c: Json) => c.effect === 'mix')).toBe(false);
  });

  it('says the mix moved when the dear hotel sold more nights at its usual rate', async () => {
    const r = await contributions(`from=${MIX.dateFrom}&to=${MIX.dateTo}`);
    expect(r.status, r.text).toBe(200);
    const body = r.body as Json;
    expect(body.change).toBeGreaterThan(0);
    expect(body.mixEffect).toBeGreaterThan(0.8 * body.change);
    const hotel = body.dimensions.find((d: Json) => d.name === 'hotel');
    const palace = hotel.values.find((v: Json) => v.value === 'Palace');
    expect(palace.shareDuring).toBeGreaterThan(palace.shareBefore);
    expect(palace.mixEffect).toBeGreaterThan(0);
    expect(body.explanation.causes[0]).toMatchObject({ effect: 'mix', mixOf: 'hotel' });
  });

  it('refuses ratio on a view without a count column and names the field', async () => {
    const other = await loadedDetectionView(s.testDb.db, source, {
      name: 'no_counts',
      categories: [{ name: 'hotel' }],
      detectors: [{ type: 'dod' }],
      series: [{ categories: { hotel: 'A' }, values: Array.from({ length: 40 }, () => 10) }],
    });
    const r = await s.call(
      'GET',
      `/api/v1/dataviews/${other}/contributions?measure=ratio&from=2024-02-01&to=2024-02-02`,
      { auth: s.adminToken },
    );
    expect(r.status).toBe(400);
    expect(r.text).toContain('measure');
    const bad = await contributions('from=2024-02-01&to=2024-02-02&measure=rates');
    expect(bad.status).toBe(400);
  });
});
