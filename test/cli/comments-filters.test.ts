import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAnomalies, createView, type TestView } from '../integration/filters/fixtures';
import { backendName } from '../support/db';
import { startFakeLlm, chatSettings } from '../support/fake-llm';
import { startTestService, type TestService, USER } from '../support/service';
import { type Cli, cliFor, explain, requireRoutes } from './support';

describe(`service-cli comments, filters and anomalies on ${backendName}`, () => {
  let s: TestService;
  let cli: Cli;
  let view: TestView;
  let userId: number;
  /** Writes a JSON file in the runner's home and returns its path. */
  const file = (name: string, body: unknown) => {
    const p = path.join(cli.home, name);
    writeFileSync(p, JSON.stringify(body));
    return p;
  };

  beforeAll(async () => {
    s = await startTestService();
    cli = cliFor(s);
    view = await createView(s.container.db, {
      domain: 'retail',
      name: 'cli_sales',
      categories: ['country', 'channel'],
    });
    await addAnomalies(s.container.db, view, [
      { startDate: '2025-03-10', type: 'DOD', changePct: 40, categories: { country: 'CZ', channel: 'web' } },
      {
        startDate: '2025-03-12',
        type: 'Spike',
        changePct: -25,
        change: -30,
        categories: { country: 'CZ', channel: 'shop' },
      },
      { startDate: '2025-02-01', type: 'DOD', categories: { country: 'DE', channel: 'web' } },
    ]);
    const users = await s.call('GET', '/api/v1/users', { auth: s.adminToken });
    userId = users.body.find((u: { email: string }) => u.email === USER.email).id;
    await s.call('PUT', `/api/v1/users/${userId}`, { auth: s.adminToken, body: { dataViewIds: [view.id] } });
  });
  afterAll(async () => {
    cli.cleanup();
    await s.stop();
  });

  it('creates, reads, queries, updates and deletes comments, refusing writes to a data user', async () => {
    const body = {
      text: 'Easter campaign',
      email: 'admin@example.com',
      dataViewId: view.id,
      dateFrom: '2025-03-09',
      dateTo: '2025-03-11',
      categories: { country: 'CZ' },
    };
    const created = await cli.run(['comments', 'create', '--file', file('comment.json', body), '--json']);
    expect(created.code, explain(created)).toBe(0);
    const id = created.json.id as number;
    expect(created.json).toMatchObject({ text: 'Easter campaign', dataViewId: view.id });

    const [one, byView, inWindow, outside, query, byEmail] = await Promise.all([
      cli.run(['comments', 'get', String(id)]),
      cli.run(['comments', 'by-dataview', String(view.id), '--json'], { token: s.userToken }),
      cli.run([
        'comments',
        'by-dataview',
        String(view.id),
        '--date-from',
        '2025-03-10',
        '--date-to',
        '2025-03-20',
        '--json',
      ]),
      cli.run([
        'comments',
        'by-dataview',
        String(view.id),
        '--date-from',
        '2025-04-01',
        '--date-to',
        '2025-04-30',
      ]),
      cli.run(['comments', 'query', '--dataview-id', String(view.id), '--date-from', '2025-03-01']),
      cli.run(['comments', 'by-email', 'admin@example.com', '--json']),
    ]);
    expect(one.stdout).toMatch(/^text: +Easter campaign$/m);
    expect(one.stdout).toMatch(/^categories: +country=CZ$/m);
    expect(byView.json.map((c: { id: number }) => c.id)).toEqual([id]);
    expect(inWindow.json).toHaveLength(1);
    expect(outside.stdout.trim()).toBe('No comments.');
    expect(query.stdout).toMatch(/^ID +DATA VIEW +FROM +TO +AUTHOR +CATEGORIES +TEXT$/m);
    expect(query.stdout).toMatch(
      new RegExp(
        `^${id} +${view.id} +2025-03-09 +2025-03-11 +admin@example.com +country=CZ +Easter campaign$`,
        'm',
      ),
    );
    expect(byEmail.json).toHaveLength(1);

    const noWindow = await cli.run(['comments', 'query']);
    expect(noWindow.code).toBe(6);
    const mismatch = await cli.run(['comments', 'update', String(id), '--file', '-'], {
      stdin: JSON.stringify({ ...body, id: id + 100 }),
    });
    expect(mismatch.code).toBe(6);
    expect(mismatch.stderr).toMatch(/^ {2}id: must equal the id in the path/m);
    const updated = await cli.run(['comments', 'update', String(id), '--file', '-', '--json'], {
      stdin: JSON.stringify({ ...body, text: 'Easter campaign, week 2' }),
    });
    expect(updated.json, explain(updated)).toMatchObject({ id, text: 'Easter campaign, week 2' });
    const refused = await cli.run(['comments', 'delete', String(id)], { token: s.userToken });
    expect(refused.code).toBe(3);
    expect((await cli.run(['comments', 'delete', String(id)])).stdout).toContain(`Deleted comment ${id}.`);
    expect((await cli.run(['comments', 'get', String(id)])).code).toBe(4);
  });

  it('creates a filter, lists it three ways, updates, pins, shares, lets the recipient leave it, and deletes it', async () => {
    const settings = {
      name: 'CZ web',
      comment: 'Czech web shop',
      timeRange: 'Custom',
      dateFrom: '2025-03-01',
      dateTo: '2025-03-31',
      dataViews: view.label,
      sortBy: 'Change %',
      limit: 10,
    };
    const created = await cli.run(['filters', 'create', '--file', file('filter.json', settings), '--json']);
    expect(created.code, explain(created)).toBe(0);
    const id = created.json.id as number;

    const [list, little, pinnedNone] = await Promise.all([
      cli.run(['filters', 'list']),
      cli.run(['filters', 'list-little', '--json']),
      cli.run(['filters', 'pinned']),
    ]);
    expect(list.stdout).toMatch(
      new RegExp(`^${id} +CZ web +Custom +retail / cli_sales +admin@example.com`, 'm'),
    );
    expect(little.json).toEqual([{ id, name: 'CZ web', description: 'Czech web shop' }]);
    expect(pinnedNone.stdout.trim()).toBe('No filters.');

    const updated = await cli.run(['filters', 'update', String(id), '--file', '-', '--json'], {
      stdin: JSON.stringify({ ...settings, name: 'CZ all channels' }),
    });
    expect(updated.json, explain(updated)).toMatchObject({ id, name: 'CZ all channels' });
    const noId = await cli.run(['filters', 'update', '--file', '-'], { stdin: JSON.stringify(settings) });
    expect(noId.code).toBe(2);

    expect(
      (await cli.run(['filters', 'pin', String(id), '--file', '-'], { stdin: '{"pinned": true}' })).stdout,
    ).toContain(`Pinned filter ${id}.`);
    const pinned = await cli.run(['filters', 'pinned', '--json']);
    expect(pinned.json.map((f: { id: number }) => f.id)).toEqual([id]);
    expect((await cli.run(['filters', 'get', String(id)])).stdout).toMatch(/^pinned: +true$/m);
    await cli.run(['filters', 'pin', String(id), '--unpin']);
    expect((await cli.run(['filters', 'pinned', '--json'])).json).toEqual([]);

    const shared = await cli.run(['filters', 'share', String(id), '--users', String(userId)]);
    expect(shared.stdout, explain(shared)).toContain(`Filter ${id} is shared with users ${userId}.`);
    const [shares, shareable] = await Promise.all([
      cli.run(['filters', 'shares', String(id)]),
      cli.run(['filters', 'shareable-users']),
    ]);
    expect(shares.stdout.trim()).toBe(String(userId));
    expect(shareable.stdout).toMatch(new RegExp(`^${userId} +${USER.email}$`, 'm'));
    const theirs = await cli.run(['filters', 'list', '--json'], { token: s.userToken });
    expect(theirs.json).toEqual([expect.objectContaining({ id, isOwner: false })]);
    const ownerCannotLeave = await cli.run(['filters', 'unshare', String(id)]);
    expect(ownerCannotLeave.code).toBe(5);
    const left = await cli.run(['filters', 'unshare', String(id)], { token: s.userToken });
    expect(left.stdout, explain(left)).toContain(`Left shared filter ${id}.`);
    expect((await cli.run(['filters', 'list', '--json'], { token: s.userToken })).json).toEqual([]);

    expect((await cli.run(['filters', 'delete', String(id)])).stdout).toContain(`Deleted filter ${id}.`);
    expect((await cli.run(['filters', 'get', String(id)])).code).toBe(4);
  });

  it('runs a saved filter with anomalies by-filter, as a table and as JSON, with aggregates when it aggregates', async () => {
    const created = await cli.run(['filters', 'create', '--file', '-', '--json'], {
      stdin: JSON.stringify({
        name: 'March',
        timeRange: 'Custom',
        dateFrom: '2025-03-01',
        dateTo: '2025-03-31',
        dataViews: view.label,
        sortBy: 'Date',
        isAggregated: true,
        aggregationMode: 'Hierarchical',
        minCommonCategories: 1,
      }),
    });
    const id = created.json.id as number;
    const [json, human] = await Promise.all([
      cli.run(['anomalies', 'by-filter', String(id), '--json']),
      cli.run(['anomalies', 'by-filter', String(id)]),
    ]);
    expect(json.code, explain(json)).toBe(0);
    expect(json.json.anomalies.map((a: { startDate: string }) => a.startDate)).toEqual([
      '2025-03-12',
      '2025-03-10',
    ]);
    expect(json.json.aggregates.length).toBeGreaterThan(0);
    expect(human.stdout).toContain(`Filter ${id} "March": Custom (2025-03-01 to 2025-03-31)`);
    expect(human.stdout).toMatch(/^START +TYPE +DAYS +DATA VIEW +CATEGORIES +ACTUAL/m);
    expect(human.stdout).toMatch(
      /^2025-03-12 +Spike +1 +retail \/ cli_sales +country=CZ, channel=shop .* -25% .* Negative/m,
    );
    expect(human.stdout).toContain('2 anomalies:');
    expect(human.stdout).toMatch(/aggregate\(s\):/);

    const preview = await cli.run(['anomalies', 'query', '--file', '-', '--json'], {
      stdin: JSON.stringify({
        timeRange: 'Custom',
        dateFrom: '2025-02-01',
        dateTo: '2025-02-28',
        dataViews: view.label,
      }),
    });
    expect(preview.json.anomalies, explain(preview)).toHaveLength(1);
    const unknown = await cli.run(['anomalies', 'by-filter', '999999']);
    expect(unknown.code).toBe(4);
  });

  it('shows the prompt, refuses a refresh without a language model, then refreshes and shows the stored summary', async () => {
    requireRoutes(
      ['GET', '/api/v1/anomaly-filters/{id}/summarization'],
      ['POST', '/api/v1/anomaly-filters/{id}/summarization/refresh'],
      ['GET', '/api/v1/anomaly-filters/{id}/summarization/prompt'],
    );
    const created = await cli.run(['filters', 'create', '--file', '-', '--json'], {
      stdin: JSON.stringify({
        name: 'Summarised',
        dataViews: view.label,
        isSummarized: true,
        instructions: 'Be brief.',
      }),
    });
    const id = String(created.json.id);
    const [none, shownPrompt, unconfigured] = await Promise.all([
      cli.run(['filters', 'summarization', id]),
      cli.run(['filters', 'prompt', id]),
      cli.run(['filters', 'refresh-summarization', id]),
    ]);
    expect(none.stdout, explain(none)).toContain('No summary yet.');
    expect(shownPrompt.stdout).toContain('Filter: Summarised');
    expect(unconfigured.code).toBe(5);
    expect(unconfigured.stderr).toMatch(/^Error: No language-model endpoint is configured/m);

    const fake = await startFakeLlm();
    try {
      await s.call('PUT', '/api/v1/settings/summarization', {
        auth: s.adminToken,
        body: {
          ...chatSettings(fake),
        },
      });
      fake.reply = 'Quiet week; CZ web up 40 %.';
      const refreshed = await cli.run([
        'filters',
        'refresh-summarization',
        id,
        '--instructions',
        'Two sentences.',
      ]);
      expect(refreshed.code, explain(refreshed)).toBe(0);
      expect(refreshed.stdout).toContain('Quiet week; CZ web up 40 %.');
      expect(fake.requests.at(-1)!.body.messages[0].content).toBe('Two sentences.');
      const stored = await cli.run(['filters', 'summarization', id, '--json']);
      expect(stored.json).toMatchObject({ text: 'Quiet week; CZ web up 40 %.' });
    } finally {
      await fake.close();
    }
  });
});
