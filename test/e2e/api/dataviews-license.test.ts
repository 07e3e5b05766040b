import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixedClock } from '../../../lib/shared/clock';
import { insertConnector, retailNamed } from '../../integration/dataviews/support';
import { backendName } from '../../support/db';
import { startTestService, type TestService } from '../../support/service';

describe(`the licence limit and usage over HTTP on ${backendName}`, () => {
  let s: TestService;
  const admin = () => ({ auth: s.adminToken });
  const create = (name: string) =>
    s.call('POST', '/api/v1/dataviews', { ...admin(), body: retailNamed(name) });

  beforeAll(async () => {
    s = await startTestService({ LICENSE_MAX_DATA_VIEWS: '2', LICENSE_PLAN: 'trial' });
    await insertConnector(s.container.db);
  });
  afterAll(() => s.stop());

  it('shows the plan and its usage to any signed-in caller', async () => {
    const r = await s.call('GET', '/api/v1/system/license', { auth: s.userToken });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ plan: 'trial', maxDataViews: 2, dataViews: 0, remaining: 2 });
    expect((await s.call('GET', '/api/v1/system/license')).status).toBe(401);
  });

  it('blocks creation at the limit with the exact message, counting prepared views too', async () => {
    const first = await create('first');
    expect(first.status).toBe(201);
    expect((await s.call('POST', `/api/v1/dataviews/${first.body.id}/deploy`, admin())).status).toBe(200);
    expect((await create('second')).status).toBe(201);
    const third = await create('third');
    expect(third.status).toBe(403);
    expect(third.body.detail).toBe('License limit reached: max 2 data views.');
    expect((await s.call('GET', '/api/v1/system/license', admin())).body).toMatchObject({
      dataViews: 2,
      remaining: 0,
    });
  });

  it('does not block enable, update or deploy at the limit, and frees a place on delete', async () => {
    const list = (await s.call('GET', '/api/v1/dataviews', admin())).body as Array<{
      id: number;
      name: string;
    }>;
    const first = list.find((v) => v.name === 'first')!;
    const second = list.find((v) => v.name === 'second')!;
    expect((await s.call('POST', `/api/v1/dataviews/${first.id}/enable`, admin())).body.state).toBe(
      'enabled',
    );
    const doc = (await s.call('GET', `/api/v1/dataviews/${second.id}`, admin())).body;
    doc.metadata.description = 'updated at the limit';
    expect((await s.call('PUT', `/api/v1/dataviews/${second.id}`, { ...admin(), body: doc })).status).toBe(
      200,
    );
    expect((await s.call('POST', `/api/v1/dataviews/${second.id}/deploy`, admin())).status).toBe(200);
    await s.call('POST', `/api/v1/dataviews/${second.id}/undeploy`, admin());
    expect((await s.call('DELETE', `/api/v1/dataviews/${second.id}`, admin())).status).toBe(204);
    expect((await create('third')).status).toBe(201);
  });

  it('lets only one of two simultaneous creations take the last place', async () => {
    const list = (await s.call('GET', '/api/v1/dataviews', admin())).body as Array<{
      id: number;
      name: string;
    }>;
    const third = list.find((v) => v.name === 'third')!;
    expect((await s.call('DELETE', `/api/v1/dataviews/${third.id}`, admin())).status).toBe(204);
    const answers = await Promise.all([create('race_a'), create('race_b')]);
    expect(answers.map((a) => a.status).sort()).toEqual([201, 403]);
  });
});

describe(`cron Validate over HTTP on ${backendName}`, () => {
  let s: TestService;
  const validate = (body: unknown, auth: string | null = s.userToken) =>
    s.call('POST', '/api/v1/cron/validate', { auth, body });

  beforeAll(async () => {
    s = await startTestService({ SERVICE_TIME_ZONE: 'Europe/Prague' });
    s.container.clock = fixedClock('2025-03-28T12:00:00Z');
  });
  afterAll(() => s.stop());

  it('lists the next five runs of a six-field schedule in the service time zone', async () => {
    const r = await validate({ expression: '0 30 5 * * *' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ valid: true, expression: '0 30 5 * * *', timeZone: 'Europe/Prague' });
    // 05:30 in Prague is 04:30 UTC in winter and 03:30 UTC from 30 March (summer time).
    expect(r.body.nextRuns).toEqual([
      '2025-03-29T04:30:00.000Z',
      '2025-03-30T03:30:00.000Z',
      '2025-03-31T03:30:00.000Z',
      '2025-04-01T03:30:00.000Z',
      '2025-04-02T03:30:00.000Z',
    ]);
  });

  it('accepts five fields, a count and another time zone', async () => {
    const r = await validate({ expression: '0 6 * * 1', count: 2, timeZone: 'UTC' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ normalized: '0 0 6 * * 1', timeZone: 'UTC' });
    expect(r.body.nextRuns).toEqual(['2025-03-31T06:00:00.000Z', '2025-04-07T06:00:00.000Z']);
  });

  it('answers 400 naming expression with the field-level message', async () => {
    const r = await validate({ expression: '0 0 24 * * *' });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { path: 'expression', message: expect.stringContaining('hour field: 24 is out of range 0-23') },
    ]);
    const names = await validate({ expression: '0 0 6 * * MON' });
    expect(names.body.errors[0]).toMatchObject({
      path: 'expression',
      message: expect.stringContaining('day-of-week'),
    });
  });

  it('answers 400 for a missing expression, a count above 50 and an unknown time zone', async () => {
    expect((await validate({})).body.errors).toContainEqual({ path: 'expression', message: 'is required' });
    expect((await validate({ expression: '* * * * *', count: 51 })).body.errors[0].path).toBe('count');
    const tz = await validate({ expression: '* * * * *', timeZone: 'Mars/Olympus' });
    expect(tz.status).toBe(400);
    expect(tz.body.errors[0].path).toBe('timeZone');
  });

  it('needs a signed-in caller', async () => {
    expect((await validate({ expression: '* * * * *' }, null)).status).toBe(401);
  });
});
