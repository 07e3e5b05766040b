/** The CLI speaks of incidents: incident rows with their root cause, members, CSV columns, and contributions. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backendName } from '../support/db';
import { loadedDetectionView } from '../support/detection-fixture';
import { GAP, INCIDENT_CATEGORIES, incidentSeries } from '../support/incident-fixture';
import { createTestSource, type TestSource } from '../support/pipeline-source';
import { localHarness, type QueueHarness } from '../support/queue';
import { startTestService, type TestService } from '../support/service';
import { type Cli, cliFor, explain, requireRoutes } from './support';

describe(`service-cli incidents and contributions on ${backendName}`, () => {
  let s: TestService;
  let cli: Cli;
  let source: TestSource;
  let queue: QueueHarness;
  let view: number;
  let filterId: number;

  beforeAll(async () => {
    requireRoutes(
      ['GET', '/api/v1/anomalies/by-filter/{id}'],
      ['GET', '/api/v1/dataviews/{id}/contributions'],
    );
    s = await startTestService();
    cli = cliFor(s);
    queue = localHarness();
    await queue.install(s.container);
    source = await createTestSource();
    view = await loadedDetectionView(s.testDb.db, source, {
      name: 'cli_orders',
      categories: INCIDENT_CATEGORIES,
      detectors: [{ type: 'gap' }, { type: 'dod' }],
      series: incidentSeries(),
    });
    await s.call('POST', `/api/v1/dataviews/${view}/jobs/process`, { auth: s.adminToken });
    await queue.idle();
    const created = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: {
        name: 'Incidents',
        timeRange: 'Custom',
        dateFrom: GAP.dateFrom,
        dateTo: GAP.dateTo,
        sortBy: 'SIN',
        incidents: true,
      },
    });
    filterId = created.body.id;
  }, 180_000);
  afterAll(async () => {
    cli?.cleanup();
    await queue?.stop();
    await source?.stop();
    await s?.stop();
  });

  it('prints incident rows with their id and root cause, and each incident with its members', async () => {
    const r = await cli.run(['anomalies', 'by-filter', String(filterId), '--members']);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/one row each, named by the root cause/);
    expect(r.stdout).toMatch(/^INCIDENT +ROOT CAUSE +START/m);
    expect(r.stdout).toMatch(/root cause: region=South, city=Milan, channel=app \(\d+(\.\d)?%\)/);
    expect(r.stdout).toMatch(
      /Incident \d+ \(retail \/ cli_orders\), 2024-0\d-\d\d to 2024-0\d-\d\d, \d+ record\(s\)/,
    );
    // Each root cause with its own figures, the broad series' as context.
    expect(r.stdout).toMatch(
      /root cause: region=South, city=Milan, channel=app \(\d+(\.\d)?%\): actual [\d.]+, expected [\d.]+, change -[\d.]+ \(-[\d.]+%\)/,
    );
    expect(r.stdout).toMatch(/broad series \(context\): /);
  });

  it('writes the incident as readable CSV columns', async () => {
    const r = await cli.run(['anomalies', 'by-filter', String(filterId), '--csv']);
    expect(r.code, explain(r)).toBe(0);
    const [header, ...lines] = r.stdout.split('\r\n');
    const cols = header.split(',');
    expect(cols).toEqual(
      expect.arrayContaining([
        'incidentId',
        'rootCause',
        'rootCauseExplainsPct',
        'broadSeries',
        'incidentSize',
      ]),
    );
    expect(cols).not.toContain('incident');
    expect(lines.some((l) => l.includes('region=South; city=Milan; channel=app'))).toBe(true);
  });

  it('shows what drove a change, as tables with bars, and as JSON', async () => {
    const args = ['dataviews', 'contributions', String(view), '--from', GAP.dateFrom, '--to', GAP.dateTo];
    const r = await cli.run(args);
    expect(r.code, explain(r)).toBe(0);
    expect(r.stdout).toMatch(/Best explaining set: region=South, city=Milan, channel=app/);
    expect(r.stdout).toMatch(/^CITY +CHANGE +CHANGE % +EXPLAINS +SHARE BEFORE +SHARE DURING +SURPRISE/m);
    expect(r.stdout).toMatch(/^Milan +-\d+.*-▇+$/m);
    const json = await cli.run([...args, '--categories', 'region=South', '--limit', '1', '--json']);
    expect(json.code, explain(json)).toBe(0);
    expect((json.json as any).categories).toEqual({ region: 'South', city: null, channel: null });
    const bad = await cli.run([...args, '--measure', 'revenue']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('measure');
  });
});
