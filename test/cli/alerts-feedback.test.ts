/** service-cli feedback and alerts against the real service: give feedback, subscribe, list, see the secret once. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnomalies, createView, type TestView } from '../integration/filters/fixtures';
import { startTestService, type TestService, USER } from '../support/service';
import { type Cli, cliFor, explain } from './support';

describe('service-cli feedback and alerts', () => {
  let s: TestService;
  let cli: Cli;
  let view: TestView;
  let seriesId: number;
  let filterId: number;

  beforeAll(async () => {
    s = await startTestService();
    cli = cliFor(s);
    view = await createView(s.container.db, {
      domain: 'retail',
      name: 'cli_alerts',
      categories: ['country'],
    });
    const [a] = await addAnomalies(s.container.db, view, [
      { startDate: '2025-03-10', type: 'DOD', categories: { country: 'CZ' } },
    ]);
    seriesId = a.seriesId;
    const users = await s.call('GET', '/api/v1/users', { auth: s.adminToken });
    const userId = users.body.find((u: { email: string }) => u.email === USER.email).id;
    await s.call('PUT', `/api/v1/users/${userId}`, { auth: s.adminToken, body: { dataViewIds: [view.id] } });
    const f = await s.call('POST', '/api/v1/anomaly-filters', {
      auth: s.adminToken,
      body: { name: 'CLI alerts', dataViews: 'retail / cli_alerts' },
    });
    filterId = f.body.id;
    await s.call('POST', `/api/v1/anomaly-filters/${filterId}/share`, {
      auth: s.adminToken,
      body: { targetUserIds: [userId] },
    });
    // The test target is on loopback, which alert targets reach only where private networks are allowed.
    await s.call('PUT', '/api/v1/settings/alerts', {
      auth: s.adminToken,
      body: { allowPrivateNetwork: true },
    });
  });
  afterAll(async () => {
    cli?.cleanup();
    await s?.stop();
  });

  it('gives and lists feedback as a data user', async () => {
    const set = await cli.run(
      [
        'feedback',
        'set',
        '--dataview-id',
        String(view.id),
        '--series-id',
        String(seriesId),
        '--type',
        'DOD',
        '--start-date',
        '2025-03-10',
        '--status',
        'not-anomaly',
        '--note',
        'Test data',
        '--json',
      ],
      { token: s.userToken },
    );
    expect(set.code, explain(set)).toBe(0);
    expect(set.json).toMatchObject({ status: 'not-anomaly', note: 'Test data', email: USER.email });
    const list = await cli.run(['feedback', 'list', '--dataview-id', String(view.id)], {
      token: s.userToken,
    });
    expect(list.code, explain(list)).toBe(0);
    expect(list.stdout).toContain('not-anomaly');
    const bad = await cli.run(
      [
        'feedback',
        'set',
        '--dataview-id',
        String(view.id),
        '--series-id',
        String(seriesId),
        '--type',
        'DOD',
        '--start-date',
        '2025-03-11',
        '--status',
        'expected',
      ],
      { token: s.userToken },
    );
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/not found/i);
  });

  it('subscribes a filter to a webhook, prints the secret once, lists "My alerts"', async () => {
    const sub = await cli.run(
      [
        'alerts',
        'subscribe',
        String(filterId),
        '--channel',
        'webhook',
        '--hook-url',
        'http://127.0.0.1:9/hook',
      ],
      { token: s.userToken },
    );
    expect(sub.code, explain(sub)).toBe(0);
    const secret = /Signing secret \(shown only now\): (\S+)/.exec(sub.stdout)?.[1];
    expect(secret).toBeTruthy();
    const list = await cli.run(['alerts', 'list', '--json'], { token: s.userToken });
    expect(list.code, explain(list)).toBe(0);
    expect(list.json).toHaveLength(1);
    expect(list.json[0]).toMatchObject({ filterId, channel: 'webhook', target: 'http://127.0.0.1:9/hook' });
    expect(list.stdout).not.toContain(secret as string);
    const refused = await cli.run(
      [
        'alerts',
        'subscribe',
        String(filterId),
        '--channel',
        'webhook',
        '--hook-url',
        'http://169.254.169.254/',
      ],
      { token: s.userToken },
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('url');
    const test = await cli.run(['alerts', 'test', String(list.json[0].id)], { token: s.userToken });
    expect(test.code, explain(test)).toBe(0);
    expect(test.stdout).toContain('Test message failed');
  });
});
