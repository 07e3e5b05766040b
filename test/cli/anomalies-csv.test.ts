import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../lib/shared/clock';
import { addAnomalies, createView } from '../integration/filters/fixtures';
import { backendName } from '../support/db';
import { startTestService, type TestService } from '../support/service';
import { type Cli, cliFor } from './support';

describe(`service-cli anomalies by-filter --csv and paging on ${backendName}`, () => {
  let s: TestService;
  let cli: Cli;
  let filterId: number;

  beforeAll(async () => {
    s = await startTestService();
    s.container.clock = fixedClock('2024-03-06T09:00:00Z');
    cli = cliFor(s);
    const view = await createView(s.container.db, {
      domain: 'retail',
      name: 'csv_sales',
      categories: ['country', 'city'],
    });
    await addAnomalies(s.container.db, view, [
      { startDate: '2024-03-04', changePct: 40, sin: 3, categories: { country: 'CZ', city: 'Brno, centre' } },
      {
        startDate: '2024-03-05',
        changePct: -20,
        change: -20,
        sin: 2,
        categories: { country: 'DE', city: '=cmd()' },
      },
      { startDate: '2024-03-03', changePct: 10, sin: 1, categories: { country: 'DE', city: null } },
    ]);
    const created = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: { name: 'CSV', timeRange: 'Last 7 Days', sortBy: 'SIN' },
    });
    filterId = created.body.id;
  });
  afterAll(async () => {
    cli.cleanup();
    await s.stop();
  });

  it('prints every record as CSV: a header of every field, categories as columns, quoted cells', async () => {
    const r = await cli.run(['anomalies', 'by-filter', String(filterId), '--csv']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\r\n');
    expect(lines.at(-1)).toBe('');
    const header = lines[0].split(',');
    expect(header.slice(0, 3)).toEqual(['id', 'dataViewId', 'dataView']);
    expect(header).toEqual(expect.arrayContaining(['startDate', 'changePct', 'sin', 'sim', 'comments']));
    expect(header.slice(-2)).toEqual(['country', 'city']);
    expect(lines).toHaveLength(5);
    // Ranked by SIN; a comma is quoted, a would-be formula is defused, the "all" value is empty.
    expect(lines[1]).toMatch(/,CZ,"Brno, centre"$/);
    expect(lines[1]).toContain(',retail / csv_sales,');
    expect(lines[2]).toMatch(/,DE,'=cmd\(\)$/);
    expect(lines[3]).toMatch(/,DE,$/);
  });

  it('sorts the CSV by a column and pages the table', async () => {
    const sorted = await cli.run([
      'anomalies',
      'by-filter',
      String(filterId),
      '--csv',
      '--sort-by',
      'startDate',
    ]);
    const dates = sorted.stdout
      .split('\r\n')
      .slice(1, 4)
      .map((l) => l.match(/\d{4}-\d{2}-\d{2}/)?.[0]);
    expect(dates).toEqual(['2024-03-03', '2024-03-04', '2024-03-05']);
    const page = await cli.run([
      'anomalies',
      'by-filter',
      String(filterId),
      '--page-size',
      '2',
      '--offset',
      '2',
    ]);
    expect(page.code).toBe(0);
    expect(page.stdout).toContain('Anomalies 3-3 of 3');
    const json = await cli.run(['anomalies', 'by-filter', String(filterId), '--page-size', '2', '--json']);
    expect(json.json.anomalies).toHaveLength(2);
    expect(json.json.page).toMatchObject({ total: 3, pageSize: 2, offset: 0 });
    const bad = await cli.run(['anomalies', 'by-filter', String(filterId), '--page-size', '0']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('pageSize');
  });
});
