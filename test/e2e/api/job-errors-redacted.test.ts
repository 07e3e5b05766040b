/**
 * A job's error names the source's host, port and database user (the driver's words): GET /jobs,
 * /jobs/{id}, /monitoring and a view's /status show it whole to an administrator and, to a data user who
 * reads the view, only that the job failed with its id (docs/security.md, Jobs).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createView } from '../../integration/filters/fixtures';
import { backendName } from '../../support/db';
import { startTestService, type TestService, USER } from '../../support/service';

const LEAK = 'could not connect to db-internal.corp:5432 as user etl_reader: connection refused';

describe(`job errors for data users on ${backendName}`, () => {
  let s: TestService;
  let viewId: number;
  const ids: Record<string, number> = {};

  const insertJob = async (kind: string, status: string, at: string, error: string | null, detail = {}) =>
    Number(
      (
        await s.container.db.rows<{ id: number }>(sql`
          INSERT INTO jobs (data_view_id, kind, status, trigger, attempts, error, detail, created_at, started_at, finished_at)
          VALUES (${viewId}, ${kind}, ${status}, 'api', 1, ${error}, ${JSON.stringify(detail)}::jsonb,
            ${at}::timestamptz, ${at}::timestamptz, ${status === 'failed' || status === 'finished' ? at : null}::timestamptz)
          RETURNING id`)
      )[0].id,
    );

  beforeAll(async () => {
    s = await startTestService();
    viewId = (await createView(s.container.db, { domain: 'retail', name: 'leaky', categories: ['country'] }))
      .id;
    const users = await s.call('GET', '/api/v1/users', { auth: s.adminToken });
    const userId = users.body.find((u: { email: string }) => u.email === USER.email).id;
    const assigned = await s.call('PUT', `/api/v1/users/${userId}`, {
      auth: s.adminToken,
      body: { dataViewIds: [viewId] },
    });
    if (assigned.status !== 200) throw new Error(assigned.text);
    ids.failed = await insertJob('CustomLoad', 'failed', '2025-01-15T06:00:00Z', LEAK);
    ids.load = await insertJob('Load', 'finished', '2025-01-15T06:30:00Z', null, {
      rows: 10,
      processError: `queue refused: ${LEAK}`,
    });
    ids.retrying = await insertJob(
      'Process',
      'pending',
      '2025-01-15T07:00:00Z',
      `attempt 1 of 3 failed, retrying: ${LEAK}`,
    );
  });
  afterAll(async () => {
    await s?.stop();
  });

  const reads = () => [
    '/api/v1/jobs',
    `/api/v1/jobs?dataViewId=${viewId}&status=failed`,
    `/api/v1/jobs/${ids.failed}`,
    `/api/v1/jobs/${ids.retrying}`,
    '/api/v1/monitoring',
    `/api/v1/monitoring/${viewId}`,
    `/api/v1/dataviews/${viewId}/status`,
  ];

  it('shows a data user that the job failed and its id, never the source address or user', async () => {
    for (const path of reads()) {
      const r = await s.call('GET', path, { auth: s.userToken });
      expect(r.status, `${path}: ${r.text}`).toBe(200);
      expect(r.text, path).not.toContain('db-internal');
      expect(r.text, path).not.toContain('5432');
      expect(r.text, path).not.toContain('etl_reader');
    }
    const failed = await s.call('GET', `/api/v1/jobs/${ids.failed}`, { auth: s.userToken });
    expect(failed.body).toMatchObject({
      status: 'failed',
      error: `Job ${ids.failed} failed; an administrator can see why.`,
      message: `Job ${ids.failed} failed; an administrator can see why.`,
    });
    const retrying = await s.call('GET', `/api/v1/jobs/${ids.retrying}`, { auth: s.userToken });
    expect(retrying.body.error).toBe(
      `An attempt of job ${ids.retrying} failed and will be retried; an administrator can see why.`,
    );
    const monitoring = await s.call('GET', `/api/v1/monitoring/${viewId}`, { auth: s.userToken });
    const row = monitoring.body.dataViews[0];
    expect(row.jobsByKind.customLoad.error).toBe(`Job ${ids.failed} failed; an administrator can see why.`);
    expect(row.jobsByKind.load.detail.processError).toContain(`after job ${ids.load}`);
  });

  it('shows an administrator the whole error', async () => {
    const failed = await s.call('GET', `/api/v1/jobs/${ids.failed}`, { auth: s.adminToken });
    expect(failed.body.error).toBe(LEAK);
    const listed = await s.call('GET', `/api/v1/jobs?dataViewId=${viewId}`, { auth: s.adminToken });
    expect(listed.body.find((j: { id: number }) => j.id === ids.retrying).error).toContain(LEAK);
    const monitoring = await s.call('GET', '/api/v1/monitoring', { auth: s.adminToken });
    expect(JSON.stringify(monitoring.body)).toContain(LEAK);
    const status = await s.call('GET', `/api/v1/dataviews/${viewId}/status`, { auth: s.adminToken });
    expect(JSON.stringify(status.body)).toContain(LEAK);
  });
});
