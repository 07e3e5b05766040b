import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServedPglite, servePglite } from '../../../scripts/local/pglite-server';
import { backendName } from '../../support/db';
import { startTestService, type TestService } from '../../support/service';

describe(`sample data preview of a data view query on ${backendName}`, () => {
  let s: TestService;
  let source: ServedPglite;
  const preview = (body: unknown, auth = s.adminToken) =>
    s.call('POST', '/api/v1/dataviews/preview-query', { auth, body });

  beforeAll(async () => {
    s = await startTestService({ CONNECTOR_TIMEOUT_MS: '3000' });
    source = await servePglite('memory://');
    await source.db.exec(`CREATE TABLE hotel_nights (stay_day integer, hotel text, room_revenue numeric);
      INSERT INTO hotel_nights SELECT 20240101 + g, 'H' || (g % 3), 100 + g FROM generate_series(0, 29) g;`);
    const conn = `Host=127.0.0.1;Port=${source.port};Database=postgres;Username=postgres;Password=x;SSL Mode=disable`;
    const r = await s.call('POST', '/api/v1/connectors', {
      auth: s.adminToken,
      body: { name: 'demo_pgsql', type: 'pgsql', configuration: { conn_string: conn } },
    });
    if (r.status !== 201) throw new Error(r.text);
  });
  afterAll(async () => {
    await s.stop();
    await source.close();
  });

  it('answers the first 10 rows and the columns of the load query', async () => {
    const r = await preview({
      connector: 'demo_pgsql',
      query: 'SELECT stay_day, hotel, room_revenue FROM hotel_nights ORDER BY stay_day',
    });
    expect(r.status).toBe(200);
    expect(r.body.columns.map((c: { name: string }) => c.name)).toEqual([
      'stay_day',
      'hotel',
      'room_revenue',
    ]);
    expect(r.body.rows).toHaveLength(10);
    expect(r.body.rows[0]).toMatchObject({ stay_day: 20240101, hotel: 'H0' });
  });

  it('names the source error, the unknown connector and the missing query', async () => {
    const bad = await preview({ connector: 'demo_pgsql', query: 'SELECT nope FROM hotel_nights' });
    expect(bad.status).toBe(502);
    expect(bad.body.detail).toMatch(/nope/);
    expect((await preview({ connector: 'missing', query: 'SELECT 1' })).status).toBe(404);
    const noQuery = await preview({ connector: 'demo_pgsql' });
    expect(noQuery.status).toBe(400);
    expect(noQuery.body.errors).toContainEqual({ path: 'query', message: 'is required' });
  });

  it('is for administrators only', async () => {
    expect((await preview({ connector: 'demo_pgsql', query: 'SELECT 1' }, s.userToken)).status).toBe(403);
  });
});
