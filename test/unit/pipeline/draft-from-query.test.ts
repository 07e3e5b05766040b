/** Drafting a data view from a query's rows: column kinds, suggested columns, parent links, series count, draft. */
import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../lib/dataviews/definition/validate';
import { draftDefinition, suggestDetectors } from '../../../lib/pipeline/draft-definition';
import { countSeries, suggestParents } from '../../../lib/pipeline/query-hierarchy';
import { labelOf, profileColumns, suggestShape } from '../../../lib/pipeline/query-profile';

/** 3 countries, 2 regions each, 2 cities per region, 2 channels, `days` days: a true hierarchy. */
function salesRows(days: number) {
  const rows: Record<string, unknown>[] = [];
  for (let d = 0; d < days; d++)
    for (const country of ['DE', 'FR', 'IT'])
      for (const r of [1, 2])
        for (const c of [1, 2])
          for (const channel of ['web', 'store'])
            rows.push({
              day: 20240101 + (d % 28) + Math.floor(d / 28) * 100,
              country,
              region: `${country}-R${r}`,
              city: `${country}-R${r}-C${c}`,
              channel,
              revenue: (100 + d * 1.5).toFixed(2),
              orders: 10 + d,
            });
  return rows;
}

describe('drafting a data view from a query', () => {
  const rows = salesRows(40);
  const columns = ['day', 'country', 'region', 'city', 'channel', 'revenue', 'orders'];

  it('reads each column as the load would: a day as YYYYMMDD, numbers (decimal strings too), text', () => {
    const kinds = profileColumns(columns, rows).map((p) => [p.name, p.kind, p.integer]);
    expect(kinds).toEqual([
      ['day', 'day', true],
      ['country', 'text', false],
      ['region', 'text', false],
      ['city', 'text', false],
      ['channel', 'text', false],
      ['revenue', 'number', false],
      ['orders', 'number', true],
    ]);
    const odd = profileColumns(
      ['d', 'x'],
      [
        { d: 20240230, x: null },
        { d: 20240301, x: null },
      ],
    );
    expect(odd.map((p) => p.kind)).toEqual(['number', 'empty']);
  });

  it('suggests the date, the value, the count and the text columns as categories, but not an id', () => {
    expect(suggestShape(profileColumns(columns, rows), rows.length)).toEqual({
      dateColumn: 'day',
      valueColumn: 'revenue',
      countColumn: 'orders',
      categories: ['country', 'region', 'city', 'channel'],
    });
    const withId = rows.map((r, i) => ({ ...r, order_ref: `O${i}` }));
    const shape = suggestShape(profileColumns([...columns, 'order_ref'], withId), withId.length);
    expect(shape.categories).not.toContain('order_ref');
    // A lone numeric column is the value, not a count.
    expect(suggestShape(profileColumns(['day', 'n'], [{ day: 20240101, n: 3 }]), 1)).toMatchObject({
      valueColumn: 'n',
      countColumn: undefined,
    });
  });

  it('links each category to the nearest one its values belong to: city → region → country', () => {
    expect(suggestParents(rows, ['city', 'channel', 'region', 'country'])).toEqual([
      { name: 'country' },
      { name: 'region', parent: 'country' },
      { name: 'city', parent: 'region' },
      { name: 'channel' },
    ]);
    // A row puts a German city in a French region: that city is in two regions and that region in two
    // countries; the city still belongs to one country, which becomes its parent.
    const broken = [...rows, { ...rows[0], region: 'FR-R1' }];
    expect(suggestParents(broken, ['country', 'region', 'city'])).toEqual([
      { name: 'country' },
      { name: 'region' },
      { name: 'city', parent: 'country' },
    ]);
  });

  it('links a category whose names recur under several parents when a category below tells them apart', () => {
    // The demo's shape: a region South in Germany and in Austria, each with cities of its own.
    const cities = [
      ['CZ', 'Bohemia', 'Prague'],
      ['CZ', 'Moravia', 'Brno'],
      ['DE', 'North', 'Hamburg'],
      ['DE', 'South', 'Munich'],
      ['AT', 'East', 'Vienna'],
      ['AT', 'South', 'Graz'],
    ];
    const demo = cities.flatMap(([country, region, city]) =>
      ['web', 'store', 'phone'].map((channel) => ({ country, region, city, channel })),
    );
    expect(suggestParents(demo, ['country', 'region', 'city', 'channel'])).toEqual([
      { name: 'country' },
      { name: 'region', parent: 'country' },
      { name: 'city', parent: 'region' },
      { name: 'channel' },
    ]);
    // Without the cities nothing tells the two Souths apart: region stays unlinked.
    expect(suggestParents(demo, ['country', 'region'])).toEqual([{ name: 'country' }, { name: 'region' }]);
    // A category crossed with another is never linked to it, even when a third determines both.
    const crossed = ['N', 'S', 'E'].flatMap((region) =>
      ['small', 'large'].map((format) => ({ region, format, store: `${region}-${format}` })),
    );
    expect(suggestParents(crossed, ['region', 'format', 'store'])).toEqual([
      { name: 'region' },
      { name: 'format' },
      { name: 'store', parent: 'region' },
    ]);
  });

  it('counts the series of the cube: the grouping sets the parents allow, each with its combinations', () => {
    const nodes = suggestParents(rows, ['country', 'region', 'city', 'channel']);
    // (total, country, region, city) = 1 + 3 + 6 + 12 = 22, each alone and by 2 channels: 22 × 3.
    expect(countSeries(rows, nodes)).toBe(66);
    // Without parents every subset counts: more series for the same data.
    const flat = ['country', 'region', 'city', 'channel'].map((name) => ({ name }));
    expect(countSeries(rows, flat)).toBeGreaterThan(66);
  });

  it('drafts a compact definition the service accepts, with detectors for the length of the history', () => {
    expect(suggestDetectors(10).map((d) => d.type)).toEqual(['dod', 'gap']);
    expect(suggestDetectors(120).map((d) => d.type)).toEqual(['dod', 'gap', 'wow', 'spike', 'mom']);
    const draft = draftDefinition(
      {
        name: 'store_sales',
        domain: 'retail',
        connector: 'warehouse',
        loadQuery: ' SELECT * FROM daily_sales ',
        dateColumn: 'day',
        valueColumn: 'revenue',
        countColumn: 'orders',
        categories: suggestParents(rows, ['country', 'region', 'city', 'channel']),
      },
      40,
    );
    const def = validateDefinition(draft, { connectorExists: (n) => n === 'warehouse' });
    expect(def.source).toMatchObject({ loadQuery: 'SELECT * FROM daily_sales', cron: '0 0 6 * * *' });
    expect(def.categories[2]).toEqual({ name: 'city', label: 'City', parent: 'region' });
    expect(def.analysis.detectors.map((d) => d.type)).toEqual(['dod', 'gap', 'wow', 'spike']);
    expect(labelOf('sales_channel')).toBe('Sales channel');
    expect(labelOf('storeType')).toBe('Store type');
  });
});
