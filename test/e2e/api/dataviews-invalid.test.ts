import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureDoc, insertConnector } from '../../integration/dataviews/support';
import { backendName } from '../../support/db';
import { startTestService, type TestService } from '../../support/service';

type Doc = Record<string, any>;

// Retail fixture: categories country, region(country), city(region), channel; detectors
// 0 dod, 1 wow, 2 mom, 3 gap, 4 spike, 5 changepoint, 6 dt, 7 peer.
const cases: Array<{ what: string; mutate: (d: Doc) => void; path: string }> = [
  { what: 'an older schema version', mutate: (d) => (d.schemaVersion = 2), path: 'schemaVersion' },
  { what: 'a misspelt top-level key', mutate: (d) => (d.analisys = {}), path: 'analisys' },
  { what: 'no source', mutate: (d) => delete d.source, path: 'source' },
  { what: 'no metadata', mutate: (d) => delete d.metadata, path: 'metadata' },
  { what: 'a name with a hyphen', mutate: (d) => (d.metadata.name = 'retail-sales'), path: 'metadata.name' },
  { what: 'no name', mutate: (d) => delete d.metadata.name, path: 'metadata.name' },
  {
    what: 'a domain with a slash',
    mutate: (d) => (d.metadata.domain = 'retail/eu'),
    path: 'metadata.domain',
  },
  { what: 'enabled as text', mutate: (d) => (d.metadata.enabled = 'yes'), path: 'metadata.enabled' },
  {
    what: 'a misspelt metadata key',
    mutate: (d) => (d.metadata.descripton = 'x'),
    path: 'metadata.descripton',
  },
  { what: 'an unknown connector', mutate: (d) => (d.source.connector = 'nope'), path: 'source.connector' },
  { what: 'an unknown load mode', mutate: (d) => (d.source.loadMode = 'partial'), path: 'source.loadMode' },
  { what: 'an unknown trigger', mutate: (d) => (d.source.trigger = 'manual'), path: 'source.trigger' },
  { what: 'a cron trigger without cron', mutate: (d) => delete d.source.cron, path: 'source.cron' },
  { what: 'a cron hour of 24', mutate: (d) => (d.source.cron = '0 0 24 * * *'), path: 'source.cron' },
  { what: 'a cron with four fields', mutate: (d) => (d.source.cron = '0 6 * *'), path: 'source.cron' },
  { what: 'no load query', mutate: (d) => delete d.source.loadQuery, path: 'source.loadQuery' },
  { what: 'a blank load query', mutate: (d) => (d.source.loadQuery = '   '), path: 'source.loadQuery' },
  {
    what: 'a date column starting with a digit',
    mutate: (d) => (d.source.dateColumn = '1day'),
    path: 'source.dateColumn',
  },
  {
    what: 'a value column that is a category',
    mutate: (d) => (d.source.valueColumn = 'City'),
    path: 'source.valueColumn',
  },
  { what: 'no categories', mutate: (d) => (d.categories = []), path: 'categories' },
  {
    what: 'two categories with the same name',
    mutate: (d) => d.categories.push({ name: 'city', label: 'Town' }),
    path: 'categories[4].name',
  },
  {
    what: 'a category without label',
    mutate: (d) => delete d.categories[0].label,
    path: 'categories[0].label',
  },
  {
    what: 'a parent that is not a category',
    mutate: (d) => (d.categories[2].parent = 'state'),
    path: 'categories[2].parent',
  },
  {
    what: 'a category that is its own parent',
    mutate: (d) => (d.categories[3].parent = 'channel'),
    path: 'categories[3].parent',
  },
  {
    what: 'parent links that form a cycle',
    mutate: (d) => (d.categories[0].parent = 'city'),
    path: 'categories[0].parent',
  },
  {
    what: 'a fill gap method spelt as prose',
    mutate: (d) => (d.analysis.fillGapMethod = 'linear interpolation'),
    path: 'analysis.fillGapMethod',
  },
  {
    what: 'a negative ignoreLastNDays',
    mutate: (d) => (d.analysis.ignoreLastNDays = -1),
    path: 'analysis.ignoreLastNDays',
  },
  {
    what: 'ignoring every scanned day',
    mutate: (d) => Object.assign(d.analysis, { ignoreLastNDays: 30, scanInLastNDays: 30 }),
    path: 'analysis.ignoreLastNDays',
  },
  {
    what: 'an unknown detector type',
    mutate: (d) => (d.analysis.detectors[0].type = 'zscore'),
    path: 'analysis.detectors[0].type',
  },
  {
    what: 'an unknown detector param',
    mutate: (d) => (d.analysis.detectors[0].params.percentChange = 10),
    path: 'analysis.detectors[0].params.percentChange',
  },
  {
    what: 'a zero percentual change',
    mutate: (d) => (d.analysis.detectors[0].params.percentualChange = 0),
    path: 'analysis.detectors[0].params.percentualChange',
  },
  {
    what: 'an unknown mode',
    mutate: (d) => (d.analysis.detectors[2].params.mode = 'up'),
    path: 'analysis.detectors[2].params.mode',
  },
  {
    what: 'a gap whose shorterThan does not exceed longerThan',
    mutate: (d) => Object.assign(d.analysis.detectors[3].params, { longerThan: 5, shorterThan: 5 }),
    path: 'analysis.detectors[3].params.shorterThan',
  },
  {
    what: 'the same detector twice',
    mutate: (d) => d.analysis.detectors.push({ type: 'PEER', params: { percentualChange: 25 } }),
    path: 'analysis.detectors[8]',
  },
  {
    what: 'a 29 February in a common year',
    mutate: (d) => (d.analysis.specialDates[0] = '2023-02-29'),
    path: 'analysis.specialDates[0]',
  },
  {
    what: 'an unknown impact',
    mutate: (d) => (d.analysis.specialDates[1].impact = 'up'),
    path: 'analysis.specialDates[1].impact',
  },
  {
    what: 'a day of month 32',
    mutate: (d) => (d.analysis.recurringRules[0] = 'day_of_month:32'),
    path: 'analysis.recurringRules[0]',
  },
  {
    what: 'a period starting on 30 February',
    mutate: (d) => (d.analysis.specialPeriods[0].start = '02.30'),
    path: 'analysis.specialPeriods[0].start',
  },
];

describe(`invalid data view definitions over HTTP on ${backendName}`, () => {
  let s: TestService;
  beforeAll(async () => {
    s = await startTestService();
    await insertConnector(s.container.db);
  });
  afterAll(() => s.stop());

  it('covers at least 30 distinct invalid definitions', () => {
    expect(new Set(cases.map((c) => c.what)).size).toBeGreaterThanOrEqual(30);
  });

  it.each(
    cases.map((c, i) => ({ ...c, as: i % 2 === 0 ? 'JSON' : 'YAML' })),
  )('answers $what ($as) with 400 at $path', async ({ mutate, path, as }) => {
    const doc = fixtureDoc();
    mutate(doc);
    const r = await s.call('POST', '/api/v1/dataviews', {
      auth: s.adminToken,
      body: as === 'JSON' ? doc : stringify(doc),
      headers: { 'content-type': as === 'JSON' ? 'application/json' : 'application/yaml' },
    });
    expect(r.status).toBe(400);
    expect(r.headers.get('content-type')).toContain('application/problem+json');
    expect(r.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
    expect(r.body.detail).toContain(path);
  });

  it('answers the same 400 on PUT, and stores nothing from any refused body', async () => {
    const created = await s.call('POST', '/api/v1/dataviews', { auth: s.adminToken, body: fixtureDoc() });
    expect(created.status).toBe(201);
    const doc = fixtureDoc();
    doc.categories[2].parent = 'state';
    const r = await s.call('PUT', `/api/v1/dataviews/${created.body.id}`, { auth: s.adminToken, body: doc });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual([
      { path: 'categories[2].parent', message: expect.stringContaining("'state'") },
    ]);
    const list = await s.call('GET', '/api/v1/dataviews', { auth: s.adminToken });
    expect(list.body).toHaveLength(1);
    expect(
      (await s.call('GET', `/api/v1/dataviews/${created.body.id}`, { auth: s.adminToken })).body.categories[2]
        .parent,
    ).toBe('region');
  });

  it('answers an empty body, a JSON array and malformed JSON with 400', async () => {
    for (const body of [undefined, [], '{"schemaVersion":']) {
      const r = await s.call('POST', '/api/v1/dataviews', { auth: s.adminToken, body });
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
  });
});
