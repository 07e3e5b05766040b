/**
 * An interval measure through a real detection run: an office's daily mean temperature (scale: interval)
 * with two labelled cooling failures is found as such, each record's change in °C and no percent; a
 * balance that crosses zero is judged as interval without being told.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../../support/db';
import { loadedDetectionView } from '../../support/detection-fixture';
import { createTestSource, type TestSource } from '../../support/pipeline-source';
import { localHarness, type QueueHarness } from '../../support/queue';
import { startTestService, type TestService } from '../../support/service';
import { officeTemperature } from '../../../scripts/synthetic/office-temperature';

type Json = Record<string, any>;
const office = officeTemperature();
const dayOf = (t: number) =>
  new Date(Date.parse(`${office.start}T00:00:00Z`) + t * 86_400_000).toISOString().slice(0, 10);

describe(`interval measures on ${backendName}`, () => {
  let s: TestService;
  let source: TestSource;
  let queue: QueueHarness;
  let told: number;
  let inferred: number;

  beforeAll(async () => {
    s = await startTestService();
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
    const db = s.testDb.db;
    const common = {
      categories: [{ name: 'office' }],
      detectors: [{ type: 'spike' }, { type: 'dod' }],
      start: office.start,
    };
    told = await loadedDetectionView(db, source, {
      ...common,
      name: 'office_temperature',
      analysis: { measureProperties: { value: { scale: 'interval' } } },
      series: [{ categories: { office: 'Vienna' }, values: office.values }],
    });
    // The same moves around zero: a balance (the temperature less its mean), no scale set.
    inferred = await loadedDetectionView(db, source, {
      ...common,
      name: 'office_balance',
      series: [
        {
          categories: { office: 'Vienna' },
          values: office.values.map((v) => Math.round((v - 22.5) * 100) / 100),
        },
      ],
    });
    for (const id of [told, inferred]) {
      const q = await s.call('POST', `/api/v1/dataviews/${id}/jobs/process`, { auth: s.adminToken });
      expect(q.status).toBe(202);
    }
    await queue.idle();
  }, 180_000);
  afterAll(async () => {
    await queue?.stop();
    await source?.stop();
    await s?.stop();
  });

  const records = async (id: number) => {
    const view = (await s.call('GET', `/api/v1/dataviews/${id}`, { auth: s.adminToken })).body as Json;
    const r = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.adminToken,
      body: {
        timeRange: 'Custom',
        dateFrom: office.start,
        dateTo: dayOf(office.values.length - 1),
        dataViews: `${view.metadata.domain} / ${view.metadata.name}`,
        limit: 1000,
      },
    });
    expect(r.status, r.text).toBe(200);
    return r.body.anomalies as Json[];
  };
  const hits = (rs: Json[]) =>
    office.faults.filter((f) => rs.some((a) => a.startDate <= dayOf(f.to) && a.endDate >= dayOf(f.from)))
      .length;

  it('finds both cooling failures of a measure set to interval, in °C and without percent', async () => {
    const rs = await records(told);
    expect(hits(rs)).toBe(2);
    expect(rs.length).toBeLessThanOrEqual(4);
    for (const a of rs) {
      expect(a.type).toBe('Spike');
      expect(a.changePct).toBeNull();
    }
    const first = rs.find((a) => a.startDate === dayOf(office.faults[0].from));
    expect(first?.change).toBeGreaterThan(2.5);
  });

  it('judges a measure whose total crosses zero as interval without being told', async () => {
    const rs = await records(inferred);
    expect(hits(rs)).toBe(2);
    for (const a of rs) expect(a.changePct).toBeNull();
  });
});
