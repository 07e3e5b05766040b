import { describe, expect, it } from 'vitest';
import { DETECTOR_TYPES, withDefaults } from '../../../lib/dataviews/definition/detector-params';
import { lockedFieldsChanged } from '../../../lib/dataviews/definition/locked-fields';
import { definitionToYaml, parseDefinitionBody } from '../../../lib/dataviews/definition/parse';
import { tagList, validateDefinition } from '../../../lib/dataviews/definition/validate';
import { ctx, fixtureDoc, fixtureText } from './fixture';

describe('the retail fixture', () => {
  const definition = validateDefinition(fixtureDoc('retail.yaml'), ctx);

  it('validates with its country → region → city links and a channel category', () => {
    expect(definition.categories).toEqual([
      { name: 'country', label: 'Country' },
      { name: 'region', label: 'Region', parent: 'country' },
      { name: 'city', label: 'City', parent: 'region' },
      { name: 'channel', label: 'Sales channel' },
    ]);
  });

  it('comes out with lower-case detector codes and every param filled in', () => {
    expect(definition.analysis.detectors.map((d) => d.type)).toEqual([
      'dod',
      'wow',
      'mom',
      'gap',
      'spike',
      'changepoint',
      'dt',
      'peer',
    ]);
    expect(definition.analysis.detectors[0].params).toEqual(
      withDefaults('dod', { percentualChange: 40, useSpecialDates: true, minVolume: 5 }),
    );
    expect(definition.analysis.detectors[7].params).toEqual({
      percentualChange: 25,
      baselineDays: 28,
      useSpecialDates: true,
      mode: 'both',
      threshold: 4,
      maxMissingPct: 50,
      adaptAfterDays: 7,
    });
  });

  it('takes the analysed measures and the ratio label when given, and leaves them unset otherwise', () => {
    expect(definition.analysis.measures).toBeUndefined();
    const doc = fixtureDoc('retail.yaml');
    doc.analysis.measures = ['ratio', 'value'];
    doc.analysis.ratioLabel = ' average order value ';
    const chosen = validateDefinition(doc, ctx);
    expect(chosen.analysis.measures).toEqual(['ratio', 'value']);
    expect(chosen.analysis.ratioLabel).toBe('average order value');
  });

  it('holds special dates of every form in object form with impact both by default', () => {
    expect(definition.analysis.specialDates).toEqual([
      { date: '2024-11-29', impact: 'both' },
      { date: '2024-12-24', impact: 'negative' },
      { date: '2025-11-28', impact: 'positive' },
    ]);
    expect(definition.analysis.recurringRules).toEqual([
      { rule: 'month_start', impact: 'both' },
      { rule: 'month_end', impact: 'positive' },
      { rule: 'day_of_month:15', impact: 'both' },
    ]);
    expect(definition.analysis.specialPeriods).toEqual([
      { start: '12.24', end: '01.02', impact: 'both' },
      { start: '08.01', end: '08.15', impact: 'negative' },
    ]);
  });

  it('validates again to the same value', () => {
    expect(validateDefinition(structuredClone(definition), ctx)).toEqual(definition);
  });

  it('survives writing as YAML and reading back', () => {
    const again = validateDefinition(parseDefinitionBody(definitionToYaml(definition)), ctx);
    expect(again).toEqual(definition);
  });

  it('round-trips YAML → JSON → YAML without losing anything', () => {
    const fromYaml = parseDefinitionBody(fixtureText('retail.yaml'));
    const json = JSON.stringify(fromYaml);
    const fromJsonText = parseDefinitionBody(json);
    expect(fromJsonText).toEqual(fromYaml);
    expect(parseDefinitionBody(definitionToYaml(JSON.parse(json)))).toEqual(fromYaml);
  });

  it('keeps the caller’s document untouched', () => {
    const doc = fixtureDoc();
    const before = structuredClone(doc);
    validateDefinition(doc, ctx);
    expect(doc).toEqual(before);
  });
});

describe('defaults', () => {
  it('fill in a minimal API-triggered definition', () => {
    const definition = validateDefinition(fixtureDoc('minimal.yaml'), ctx);
    expect(definition.source).toEqual({
      connector: 'demo_pgsql',
      dateColumn: 'stay_day',
      valueColumn: 'room_revenue',
      loadMode: 'full',
      trigger: 'api',
      loadQuery: 'SELECT stay_day, hotel, room_revenue FROM hotel_nights',
    });
    expect(definition.analysis).toEqual({
      fillGapMethod: 'zero',
      ignoreLastNDays: 0,
      scanInLastNDays: 0,
      detectors: [],
      specialDates: [],
      recurringRules: [],
      specialPeriods: [],
    });
  });

  it('make the trigger cron when it is left out', () => {
    const doc = fixtureDoc();
    delete doc.source.trigger;
    expect(validateDefinition(doc, ctx).source.trigger).toBe('cron');
  });

  it.each(DETECTOR_TYPES)('give a %s detector without params its documented defaults', (type) => {
    const doc = fixtureDoc('minimal.yaml');
    doc.analysis = { detectors: [{ type: type.toUpperCase() }] };
    const [detector] = validateDefinition(doc, ctx).analysis.detectors;
    expect(detector).toEqual({ type, params: withDefaults(type) });
  });
});

describe('lenient input', () => {
  it('accepts and drops the read-only fields a GET returns', () => {
    const doc = {
      id: 7,
      state: 'enabled',
      createdAt: '2024-01-01T00:00:00Z',
      updatedAt: 'x',
      ...fixtureDoc(),
    };
    const definition = validateDefinition(doc, ctx);
    expect(Object.keys(definition).sort()).toEqual([
      'analysis',
      'categories',
      'metadata',
      'schemaVersion',
      'source',
    ]);
  });

  it('treats null optional values as unset', () => {
    const doc = fixtureDoc();
    Object.assign(doc.metadata, { description: null, tags: null, dataSource: null });
    Object.assign(doc.source, { customLoadQuery: null, countColumn: null });
    doc.categories[0].parent = null;
    doc.analysis.detectors[7].params = null;
    doc.analysis.detectors[0].params.minVolume = null;
    const definition = validateDefinition(doc, ctx);
    expect(definition.metadata).toEqual({ name: 'retail_sales', domain: 'retail', enabled: true });
    expect(definition.source).not.toHaveProperty('customLoadQuery');
    expect(definition.source).not.toHaveProperty('countColumn');
    expect(definition.categories[0]).toEqual({ name: 'country', label: 'Country' });
    expect(definition.analysis.detectors[7].params).toEqual(withDefaults('peer'));
    // minVolume has no default of its own (its kind decides it at detection): unset stays unset.
    expect(definition.analysis.detectors[0].params).not.toHaveProperty('minVolume');
  });

  it('allows an API trigger without cron', () => {
    const doc = fixtureDoc();
    doc.source.trigger = 'api';
    doc.source.cron = null;
    expect(validateDefinition(doc, ctx).source).not.toHaveProperty('cron');
  });

  it('accepts a mode in any case and stores it lower-case', () => {
    const doc = fixtureDoc();
    doc.analysis.detectors[0].params.mode = 'Positive';
    expect(validateDefinition(doc, ctx).analysis.detectors[0].params.mode).toBe('positive');
  });

  it('accepts 29 February as a special date in a leap year and as a period day', () => {
    const doc = fixtureDoc();
    doc.analysis.specialDates.push('2024-02-29');
    doc.analysis.specialPeriods.push({ start: '02.29', end: '03.01' });
    expect(() => validateDefinition(doc, ctx)).not.toThrow();
  });

  it('allows two detectors of one type with different params', () => {
    const doc = fixtureDoc();
    doc.analysis.detectors.push({ type: 'dod', params: { percentualChange: 80, mode: 'positive' } });
    expect(validateDefinition(doc, ctx).analysis.detectors).toHaveLength(9);
  });
});

describe('lockedFieldsChanged', () => {
  const before = validateDefinition(fixtureDoc(), ctx);

  it('finds nothing when only unlocked fields change', () => {
    const after = structuredClone(before);
    after.metadata.description = 'new text';
    after.categories[3].label = 'Channel';
    after.analysis.detectors = [];
    expect(lockedFieldsChanged(before, after)).toEqual([]);
  });

  it('names the name, the domain and the categories when they change', () => {
    const after = structuredClone(before);
    after.metadata.name = 'retail_sales_v2';
    after.metadata.domain = 'shop';
    after.categories[2].parent = 'country';
    expect(lockedFieldsChanged(before, after)).toEqual(['metadata.name', 'metadata.domain', 'categories']);
  });

  it('counts an added or reordered category as a change', () => {
    const added = structuredClone(before);
    added.categories.push({ name: 'store', label: 'Store', parent: 'city' });
    const reordered = structuredClone(before);
    reordered.categories.reverse();
    expect(lockedFieldsChanged(before, added)).toEqual(['categories']);
    expect(lockedFieldsChanged(before, reordered)).toEqual(['categories']);
  });
});

describe('tagList', () => {
  it('splits comma-separated tags and drops blanks', () => {
    expect(tagList(' retail, revenue ,,demo ')).toEqual(['retail', 'revenue', 'demo']);
    expect(tagList(undefined)).toEqual([]);
  });
});
