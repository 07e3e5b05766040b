import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../lib/shared/clock';
import { backendName } from '../../support/db';
import { startTestService, type TestService } from '../../support/service';
import { addAnomalies, addComment, createView } from '../../integration/filters/fixtures';

const NOW = '2024-03-06T09:00:00Z';

/** RFC 4180 reader for the test: fields, quotes doubled, line breaks inside quotes. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += ch;
  }
  return rows;
}

describe(`paged and exported filter results on ${backendName}`, () => {
  let s: TestService;
  let filterId: number;
  const CITIES = 30;

  beforeAll(async () => {
    s = await startTestService();
    s.container.clock = fixedClock(NOW);
    const db = s.testDb.db;
    const view = await createView(db, { domain: 'sales', name: 'orders', categories: ['Country', 'City'] });
    await addAnomalies(
      db,
      view,
      Array.from({ length: CITIES }, (_, i) => ({
        startDate: `2024-03-0${1 + (i % 5)}`,
        change: i % 2 ? -(i + 1) : i + 1,
        changePct: i % 7 === 3 ? null : (i * 37) % 101,
        sin: 100 - i,
        categories: {
          Country: i % 3 ? 'DE' : 'CZ',
          City: i === 4 ? 'Brno, "old town"' : `City ${String(i).padStart(2, '0')}`,
        },
      })),
    );
    await addComment(db, {
      dataViewId: view.id,
      text: 'Fair, with "quotes"\nand a second line',
      dateFrom: '2024-03-01',
      dateTo: '2024-03-05',
      categories: { City: 'City 00' },
    });
    const created = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: { name: 'Top 25', timeRange: 'Last 7 Days', sortBy: 'SIN', limit: 25 },
    });
    filterId = created.body.id;
  });
  afterAll(async () => {
    await s.stop();
  });

  const run = (query: string) =>
    s.call('GET', `/api/v1/anomalies/by-filter/${filterId}${query}`, { auth: s.adminToken });

  it('answers the whole Top N without paging parameters, as before', async () => {
    const r = await run('');
    expect(r.status).toBe(200);
    expect(r.body.anomalies).toHaveLength(25);
    expect(r.body.page).toBeUndefined();
  });

  it('pages the Top N: disjoint pages in the filter order that together are the whole result', async () => {
    const whole = (await run('')).body.anomalies.map((a: { id: number }) => a.id);
    const ids: number[] = [];
    for (let offset = 0; offset < 30; offset += 10) {
      const r = await run(`?offset=${offset}&pageSize=10`);
      expect(r.status).toBe(200);
      expect(r.body.page).toEqual({ offset, pageSize: 10, sortBy: 'rank', order: 'asc', total: 25 });
      expect(r.body.anomalies).toHaveLength(offset === 20 ? 5 : 10);
      ids.push(...r.body.anomalies.map((a: { id: number }) => a.id));
    }
    expect(new Set(ids).size).toBe(25);
    expect(ids).toEqual(whole);
    const beyond = await run('?offset=100&pageSize=10');
    expect(beyond.body.anomalies).toEqual([]);
    expect(beyond.body.page.total).toBe(25);
  });

  it('sorts by a column over the whole Top N before paging, nulls last both ways', async () => {
    for (const order of ['asc', 'desc'] as const) {
      const pages = [];
      for (let offset = 0; offset < 25; offset += 8) {
        pages.push(
          ...(await run(`?offset=${offset}&pageSize=8&sortBy=changePct&order=${order}`)).body.anomalies,
        );
      }
      const values = pages.map((a: { changePct: number | null }) => a.changePct);
      expect(values).toHaveLength(25);
      const numbers = values.filter((v): v is number => v !== null);
      expect(values.slice(numbers.length).every((v) => v === null)).toBe(true);
      expect(numbers.length).toBeLessThan(25);
      const sorted = [...numbers].sort((a, b) => (order === 'asc' ? a - b : b - a));
      expect(numbers).toEqual(sorted);
    }
    const byCity = (await run('?pageSize=3&sortBy=categories.City&order=desc')).body.anomalies;
    expect(byCity.map((a: { categories: { City: string } }) => a.categories.City)).toEqual([
      'City 24',
      'City 23',
      'City 22',
    ]);
  });

  it('refuses bad paging parameters with a 400 naming the parameter', async () => {
    const cases: Array<[string, string]> = [
      ['?offset=-1', 'offset'],
      ['?offset=x', 'offset'],
      ['?pageSize=0', 'pageSize'],
      ['?pageSize=1001', 'pageSize'],
      ['?sortBy=password', 'sortBy'],
      ['?order=up', 'order'],
      ['?format=xml', 'format'],
    ];
    for (const [query, param] of cases) {
      const r = await run(query);
      expect(r.status, query).toBe(400);
      expect(
        r.body.errors.map((e: { path: string }) => e.path),
        query,
      ).toEqual([param]);
    }
  });

  it('exports every record as CSV with the categories as columns and proper quoting', async () => {
    const r = await run('?format=csv');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(r.headers.get('content-disposition')).toMatch(/attachment; filename="filter-\d+-anomalies\.csv"/);
    const rows = parseCsv(r.text);
    const [header, ...body] = rows;
    expect(body).toHaveLength(25);
    for (const field of [
      'id',
      'dataViewId',
      'dataView',
      'seriesId',
      'type',
      'startDate',
      'endDate',
      'duration',
      'actualValue',
      'predictedValue',
      'change',
      'changePct',
      'changeCum',
      'sharePct',
      'recurrence',
      'result',
      'sin',
      'sim',
      'comments',
    ]) {
      expect(header).toContain(field);
    }
    expect(header.slice(-2)).toEqual(['Country', 'City']);
    const json = (await run('')).body.anomalies;
    const col = (name: string) => header.indexOf(name);
    expect(body.map((row) => Number(row[col('id')]))).toEqual(json.map((a: { id: number }) => a.id));
    const brno = body.find((row) => row[col('City')] === 'Brno, "old town"');
    expect(brno).toBeDefined();
    expect(r.text).toContain('"Brno, ""old town"""');
    const commented = body.find((row) => row[col('City')] === 'City 00')!;
    expect(commented[col('comments')]).toBe(
      'Fair, with "quotes"\nand a second line (admin@example.com, 2024-03-01 – 2024-03-05)',
    );
    const nullPct = json.find((a: { changePct: number | null }) => a.changePct === null);
    const row = body.find((x) => Number(x[col('id')]) === nullPct.id)!;
    expect(row[col('changePct')]).toBe('');
    const viaAccept = await s.call('GET', `/api/v1/anomalies/by-filter/${filterId}`, {
      auth: s.adminToken,
      headers: { accept: 'text/csv' },
    });
    expect(viaAccept.text).toBe(r.text);
    const sorted = parseCsv((await run('?format=csv&sortBy=sin&order=asc')).text).slice(1);
    const sins = sorted.map((x) => Number(x[col('sin')]));
    expect(sins).toEqual([...sins].sort((a, b) => a - b));
  });
});
