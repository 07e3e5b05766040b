/** Feedback on anomaly records over HTTP: visibility, the author rule, records carry it, hideDismissed, prompts. */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ident, schemaNameFor } from '../../../lib/dataset/ddl';
import { addAnomalies, createView, type TestView } from '../../integration/filters/fixtures';
import { startTestService, type TestService, USER } from '../../support/service';

const FB = '/api/v1/anomalies/feedback';

describe('feedback on anomalies', () => {
  let s: TestService;
  let open: TestView;
  let secret: TestView;
  const today = new Date().toISOString().slice(0, 10);
  const query = { timeRange: 'Custom', dateFrom: '2024-03-01', dateTo: '2024-03-31' };
  let cz: { seriesId: number; type: string; startDate: string; measure: string };
  let de: { seriesId: number; type: string; startDate: string; measure: string };
  let hidden: { seriesId: number; type: string; startDate: string; measure: string };

  beforeAll(async () => {
    s = await startTestService();
    open = await createView(s.container.db, { domain: 'retail', name: 'sales', categories: ['country'] });
    secret = await createView(s.container.db, { domain: 'hr', name: 'pay', categories: ['country'] });
    const [a, b] = await addAnomalies(s.container.db, open, [
      { startDate: '2024-03-05', endDate: '2024-03-06', type: 'DOD', categories: { country: 'CZ' }, sin: 3 },
      { startDate: '2024-03-10', type: 'Spike', categories: { country: 'DE' }, sin: 2 },
    ]);
    const [c] = await addAnomalies(s.container.db, secret, [
      { startDate: '2024-03-05', type: 'DOD', categories: { country: 'CZ' } },
    ]);
    cz = { seriesId: a.seriesId, type: a.type, startDate: a.startDate, measure: a.measure };
    de = { seriesId: b.seriesId, type: b.type, startDate: b.startDate, measure: b.measure };
    hidden = { seriesId: c.seriesId, type: c.type, startDate: c.startDate, measure: c.measure };
    const users = (await s.call('GET', '/api/v1/users', { auth: s.adminToken })).body as Array<{
      id: number;
      email: string;
    }>;
    const userId = users.find((u) => u.email === USER.email)!.id;
    await s.call('PUT', `/api/v1/users/${userId}`, { auth: s.adminToken, body: { dataViewIds: [open.id] } });
    void today;
  });
  afterAll(() => s?.stop());

  it('lets a reader of the view mark a record, with a note; the author comes from the session', async () => {
    const r = await s.call('PUT', FB, {
      auth: s.userToken,
      body: { dataViewId: open.id, ...cz, status: 'expected', note: 'Promotion week' },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      status: 'expected',
      note: 'Promotion week',
      email: USER.email,
      endDate: '2024-03-06',
    });
  });

  it('takes the detector type in any case, as filters do', async () => {
    const r = await s.call('PUT', FB, {
      auth: s.userToken,
      body: {
        dataViewId: open.id,
        ...cz,
        type: cz.type.toLowerCase(),
        status: 'expected',
        note: 'Promotion week',
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body.type).toBe(cz.type);
  });

  it('answers 404 on a view the user cannot read and on a record that does not exist, 400 naming bad fields', async () => {
    const invisible = await s.call('PUT', FB, {
      auth: s.userToken,
      body: { dataViewId: secret.id, ...hidden, status: 'confirmed' },
    });
    expect(invisible.status).toBe(404);
    const missing = await s.call('PUT', FB, {
      auth: s.userToken,
      body: { dataViewId: open.id, ...cz, startDate: '2024-03-07', status: 'confirmed' },
    });
    expect(missing.status).toBe(404);
    const bad = await s.call('PUT', FB, {
      auth: s.userToken,
      body: { dataViewId: open.id, ...cz, status: 'maybe' },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain('status');
    const list = await s.call('GET', FB, { auth: s.userToken });
    expect(list.body.map((f: { dataViewId: number }) => f.dataViewId)).toEqual([open.id]);
  });

  it('puts feedback on the records of a filter run, and hideDismissed leaves dismissed records out', async () => {
    const run = await s.call('POST', '/api/v1/anomalies/query', { auth: s.userToken, body: query });
    expect(run.status).toBe(200);
    const byType = Object.fromEntries(run.body.anomalies.map((a: { type: string }) => [a.type, a]));
    expect(byType.DOD.feedback).toMatchObject({
      status: 'expected',
      email: USER.email,
      note: 'Promotion week',
    });
    expect(byType.Spike.feedback).toBeNull();
    const hiddenRun = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.userToken,
      body: { ...query, hideDismissed: true },
    });
    expect(hiddenRun.body.anomalies.map((a: { type: string }) => a.type)).toEqual(['Spike']);
  });

  it('only the author or an admin changes feedback', async () => {
    const admin = await s.call('PUT', FB, {
      auth: s.adminToken,
      body: { dataViewId: open.id, ...de, status: 'confirmed' },
    });
    expect(admin.status).toBe(200);
    const user = await s.call('PUT', FB, {
      auth: s.userToken,
      body: { dataViewId: open.id, ...de, status: 'not-anomaly' },
    });
    expect(user.status).toBe(403);
    const del = await s.call('DELETE', `${FB}/${admin.body.id}`, { auth: s.userToken });
    expect(del.status).toBe(403);
    const changed = await s.call('PUT', FB, {
      auth: s.userToken,
      body: { dataViewId: open.id, ...cz, status: 'not-anomaly', note: '' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.status).toBe('not-anomaly');
  });

  it('survives a re-detection that replaces the anomalies (new ids, same key)', async () => {
    const before = await s.call('POST', '/api/v1/anomalies/query', { auth: s.userToken, body: query });
    const oldIds = before.body.anomalies.map((a: { id: number }) => a.id);
    await s.container.db.rows(sql.raw(`DELETE FROM ${ident(schemaNameFor(open.id))}.all_anomalies`));
    await addAnomalies(s.container.db, open, [
      { startDate: '2024-03-05', endDate: '2024-03-06', type: 'DOD', categories: { country: 'CZ' }, sin: 4 },
      { startDate: '2024-03-10', type: 'Spike', categories: { country: 'DE' }, sin: 2 },
      // Another detector flags the same series inside the window marked not an anomaly: not reported again.
      { startDate: '2024-03-06', type: 'Spike', categories: { country: 'CZ' }, sin: 1 },
    ]);
    const after = await s.call('POST', '/api/v1/anomalies/query', { auth: s.userToken, body: query });
    const dod = after.body.anomalies.find((a: { type: string }) => a.type === 'DOD');
    expect(oldIds).not.toContain(dod.id);
    expect(dod.feedback.status).toBe('not-anomaly');
    const hiddenRun = await s.call('POST', '/api/v1/anomalies/query', {
      auth: s.userToken,
      body: { ...query, hideDismissed: true },
    });
    expect(
      hiddenRun.body.anomalies.map(
        (a: { type: string; categories: { country: string } }) => `${a.type} ${a.categories.country}`,
      ),
    ).toEqual(['Spike DE']);
  });

  it('gives the feedback to the summary prompt', async () => {
    const f = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: { name: 'March', ...query, dataViews: 'retail / sales' },
    });
    expect(f.status).toBe(201);
    await s.call('PUT', FB, {
      auth: s.adminToken,
      body: { dataViewId: open.id, ...de, status: 'confirmed', note: 'Outage at the DE warehouse' },
    });
    const p = await s.call('GET', `/api/v1/anomaly-filters/${f.body.id}/summarization/prompt`, {
      auth: s.adminToken,
    });
    expect(p.status).toBe(200);
    expect(JSON.stringify(p.body)).toContain(
      'feedback by admin@example.com: confirmed: Outage at the DE warehouse',
    );
    expect(JSON.stringify(p.body)).toContain(`feedback by ${USER.email}: not an anomaly`);
  });
});
