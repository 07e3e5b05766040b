import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../lib/dataviews/definition/validate';
import { ValidationError } from '../../../lib/shared/errors';
import { ctx, fixtureDoc } from './fixture';

type Doc = Record<string, any>;

interface Case {
  what: string;
  mutate: (d: Doc) => void;
  /** The path at fault; no other path may be reported. */
  path: string;
  /** A fragment the message at `path` must contain, when the wording matters. */
  says?: string;
}

// Retail fixture: categories country, region(country), city(region), channel; detectors
// 0 dod, 1 wow, 2 mom, 3 gap, 4 spike, 5 changepoint, 6 dt, 7 peer; specialDates 0 plain, 1-2 objects;
// recurringRules 0 plain, 1-2 objects; specialPeriods 0-1.
const cases: Case[] = [
  // top level
  {
    what: 'an older schema version',
    mutate: (d) => (d.schemaVersion = 2),
    path: 'schemaVersion',
    says: 'must be 3',
  },
  {
    what: 'no schema version',
    mutate: (d) => delete d.schemaVersion,
    path: 'schemaVersion',
    says: 'required',
  },
  {
    what: 'a misspelt top-level key',
    mutate: (d) => (d.analisys = {}),
    path: 'analisys',
    says: 'not a known field',
  },
  { what: 'no source', mutate: (d) => delete d.source, path: 'source', says: 'required' },
  // metadata
  { what: 'a name with a hyphen', mutate: (d) => (d.metadata.name = 'retail-sales'), path: 'metadata.name' },
  { what: 'no name', mutate: (d) => delete d.metadata.name, path: 'metadata.name', says: 'required' },
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
  // source
  {
    what: 'an unknown connector',
    mutate: (d) => (d.source.connector = 'nope'),
    path: 'source.connector',
    says: "connector 'nope' does not exist",
  },
  { what: 'an unknown load mode', mutate: (d) => (d.source.loadMode = 'partial'), path: 'source.loadMode' },
  { what: 'an unknown trigger', mutate: (d) => (d.source.trigger = 'manual'), path: 'source.trigger' },
  {
    what: 'a cron trigger without cron',
    mutate: (d) => delete d.source.cron,
    path: 'source.cron',
    says: 'required when trigger is cron',
  },
  {
    what: 'a cron hour of 24',
    mutate: (d) => (d.source.cron = '0 0 24 * * *'),
    path: 'source.cron',
    says: 'hour field: 24 is out of range 0-23',
  },
  {
    what: 'a cron with day names',
    mutate: (d) => (d.source.cron = '0 0 6 * * MON'),
    path: 'source.cron',
    says: 'day-of-week',
  },
  {
    what: 'a cron with four fields',
    mutate: (d) => (d.source.cron = '0 6 * *'),
    path: 'source.cron',
    says: '5 or 6 fields',
  },
  {
    what: 'no load query',
    mutate: (d) => delete d.source.loadQuery,
    path: 'source.loadQuery',
    says: 'required',
  },
  {
    what: 'a blank load query',
    mutate: (d) => (d.source.loadQuery = '   '),
    path: 'source.loadQuery',
    says: 'blank',
  },
  {
    what: 'a date column starting with a digit',
    mutate: (d) => (d.source.dateColumn = '1day'),
    path: 'source.dateColumn',
  },
  {
    what: 'a value column that is also a category',
    mutate: (d) => (d.source.valueColumn = 'City'),
    path: 'source.valueColumn',
    says: 'category',
  },
  {
    what: 'a count column equal to the value column',
    mutate: (d) => (d.source.countColumn = 'revenue'),
    path: 'source.countColumn',
    says: 'already used as valueColumn',
  },
  // categories
  { what: 'no categories', mutate: (d) => (d.categories = []), path: 'categories' },
  {
    what: 'two categories with the same name',
    mutate: (d) => d.categories.push({ name: 'city', label: 'Town' }),
    path: 'categories[4].name',
    says: 'duplicates categories[2].name',
  },
  {
    what: 'two 62-character category names alike in their first 61 (one column after the c_ prefix)',
    mutate: (d) => {
      d.categories[3].name = `${'a'.repeat(61)}x`;
      d.categories.push({ name: `${'a'.repeat(61)}y`, label: 'Long twin' });
    },
    path: 'categories[4].name',
    says: 'shares its first 61 characters with categories[3].name',
  },
  {
    what: 'two category names differing only in case',
    mutate: (d) => d.categories.push({ name: 'CITY', label: 'Town' }),
    path: 'categories[4].name',
  },
  {
    what: 'a category name with a space',
    mutate: (d) => (d.categories[3].name = 'sales channel'),
    path: 'categories[3].name',
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
    says: "'state' is not the name of another category",
  },
  {
    what: 'a category that is its own parent',
    mutate: (d) => (d.categories[3].parent = 'channel'),
    path: 'categories[3].parent',
    says: 'own parent',
  },
  {
    what: 'parent links that form a cycle',
    mutate: (d) => (d.categories[0].parent = 'city'),
    path: 'categories[0].parent',
    says: 'country → city → region → country',
  },
  {
    what: 'a misspelt category key',
    mutate: (d) => (d.categories[1].parnet = 'country'),
    path: 'categories[1].parnet',
  },
  // analysis
  {
    what: 'a fill gap method spelt as prose',
    mutate: (d) => (d.analysis.fillGapMethod = 'linear interpolation'),
    path: 'analysis.fillGapMethod',
    says: 'zero, linear, previous',
  },
  {
    what: 'a negative ignoreLastNDays',
    mutate: (d) => (d.analysis.ignoreLastNDays = -1),
    path: 'analysis.ignoreLastNDays',
  },
  {
    what: 'a fractional scanInLastNDays',
    mutate: (d) => (d.analysis.scanInLastNDays = 1.5),
    path: 'analysis.scanInLastNDays',
  },
  {
    what: 'an unknown analysed measure',
    mutate: (d) => (d.analysis.measures = ['value', 'margin']),
    path: 'analysis.measures[1]',
  },
  {
    what: 'the ratio without a count column',
    mutate: (d) => {
      delete d.source.countColumn;
      d.analysis.measures = ['value', 'ratio'];
    },
    path: 'analysis.measures',
    says: 'ratio needs source.countColumn',
  },
  {
    what: 'ignoring every scanned day',
    mutate: (d) => Object.assign(d.analysis, { ignoreLastNDays: 30, scanInLastNDays: 30 }),
    path: 'analysis.ignoreLastNDays',
    says: 'smaller than scanInLastNDays (30)',
  },
  // detectors
  {
    what: 'an unknown detector type',
    mutate: (d) => (d.analysis.detectors[0].type = 'zscore'),
    path: 'analysis.detectors[0].type',
    says: "unknown detector type 'zscore'",
  },
  {
    what: 'a detector without type',
    mutate: (d) => delete d.analysis.detectors[0].type,
    path: 'analysis.detectors[0].type',
  },
  {
    what: 'a misspelt detector key',
    mutate: (d) => (d.analysis.detectors[0].parameters = {}),
    path: 'analysis.detectors[0].parameters',
  },
  {
    what: 'an unknown detector param',
    mutate: (d) => (d.analysis.detectors[0].params.percentChange = 10),
    path: 'analysis.detectors[0].params.percentChange',
    says: 'not a parameter of the dod detector',
  },
  {
    what: 'a param of another detector type',
    mutate: (d) => (d.analysis.detectors[4].params.percentualChange = 10),
    path: 'analysis.detectors[4].params.percentualChange',
  },
  {
    what: 'a zero percentual change',
    mutate: (d) => (d.analysis.detectors[0].params.percentualChange = 0),
    path: 'analysis.detectors[0].params.percentualChange',
    says: 'greater than 0',
  },
  {
    what: 'a percentual change written as text',
    mutate: (d) => (d.analysis.detectors[1].params.percentualChange = '25'),
    path: 'analysis.detectors[1].params.percentualChange',
    says: 'number',
  },
  {
    what: 'an unknown mode',
    mutate: (d) => (d.analysis.detectors[2].params.mode = 'up'),
    path: 'analysis.detectors[2].params.mode',
    says: 'positive, negative, both',
  },
  {
    what: 'useSpecialDates as text',
    mutate: (d) => (d.analysis.detectors[0].params.useSpecialDates = 'true'),
    path: 'analysis.detectors[0].params.useSpecialDates',
  },
  {
    what: 'a negative minVolume',
    mutate: (d) => (d.analysis.detectors[0].params.minVolume = -1),
    path: 'analysis.detectors[0].params.minVolume',
    says: 'at least 0',
  },
  {
    what: 'minValue above maxValue',
    mutate: (d) => (d.analysis.detectors[4].params.maxValue = 50),
    path: 'analysis.detectors[4].params.maxValue',
    says: 'minValue (100)',
  },
  {
    what: 'a gap whose shorterThan does not exceed longerThan',
    mutate: (d) => Object.assign(d.analysis.detectors[3].params, { longerThan: 5, shorterThan: 5 }),
    path: 'analysis.detectors[3].params.shorterThan',
    says: 'greater than longerThan (5)',
  },
  {
    what: 'a fractional gap length',
    mutate: (d) => (d.analysis.detectors[3].params.longerThan = 1.5),
    path: 'analysis.detectors[3].params.longerThan',
    says: 'whole number',
  },
  {
    what: 'a spike window of one day',
    mutate: (d) => (d.analysis.detectors[4].params.window = 1),
    path: 'analysis.detectors[4].params.window',
    says: 'at least 3',
  },
  {
    what: 'the same detector twice',
    mutate: (d) => d.analysis.detectors.push({ type: 'PEER', params: { percentualChange: 25 } }),
    path: 'analysis.detectors[8]',
    says: 'duplicates analysis.detectors[7]',
  },
  // special dates
  {
    what: 'a 29 February in a common year',
    mutate: (d) => (d.analysis.specialDates[0] = '2023-02-29'),
    path: 'analysis.specialDates[0]',
    says: 'not a real calendar date',
  },
  {
    what: 'a month 13 in object form',
    mutate: (d) => (d.analysis.specialDates[1].date = '2024-13-01'),
    path: 'analysis.specialDates[1].date',
  },
  {
    what: 'a date written day-first',
    mutate: (d) => (d.analysis.specialDates[0] = '29.11.2024'),
    path: 'analysis.specialDates[0]',
    says: 'yyyy-MM-dd',
  },
  {
    what: 'the same special date twice',
    mutate: (d) => d.analysis.specialDates.push({ date: '2024-11-29', impact: 'positive' }),
    path: 'analysis.specialDates[3].date',
    says: 'already listed at specialDates[0]',
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
    says: 'day_of_month:<1..31>',
  },
  {
    what: 'an unknown rule in object form',
    mutate: (d) => (d.analysis.recurringRules[1].rule = 'first_monday'),
    path: 'analysis.recurringRules[1].rule',
  },
  {
    what: 'the same rule twice',
    mutate: (d) => d.analysis.recurringRules.push('month_end'),
    path: 'analysis.recurringRules[3]',
    says: 'already listed at recurringRules[1]',
  },
  {
    what: 'a period starting on 30 February',
    mutate: (d) => (d.analysis.specialPeriods[0].start = '02.30'),
    path: 'analysis.specialPeriods[0].start',
    says: 'not a day of the year',
  },
  {
    what: 'a period ending in month 13',
    mutate: (d) => (d.analysis.specialPeriods[1].end = '13.01'),
    path: 'analysis.specialPeriods[1].end',
  },
  {
    what: 'a period written with a dash',
    mutate: (d) => (d.analysis.specialPeriods[0].start = '12-24'),
    path: 'analysis.specialPeriods[0].start',
    says: 'MM.dd',
  },
  {
    what: 'a period without end',
    mutate: (d) => delete d.analysis.specialPeriods[1].end,
    path: 'analysis.specialPeriods[1].end',
    says: 'required',
  },
  {
    what: 'the same period twice',
    mutate: (d) => d.analysis.specialPeriods.push({ start: '12.24', end: '01.02', impact: 'negative' }),
    path: 'analysis.specialPeriods[2]',
    says: 'duplicates specialPeriods[0]',
  },
];

function errorsOf(doc: unknown): ValidationError {
  try {
    validateDefinition(doc, ctx);
  } catch (e) {
    if (e instanceof ValidationError) return e;
    throw e;
  }
  throw new Error('the definition was accepted');
}

describe('validateDefinition rejects an invalid definition', () => {
  it('has at least 35 distinct invalid cases', () => {
    expect(new Set(cases.map((c) => c.what)).size).toBeGreaterThanOrEqual(35);
  });

  it('starts from a valid fixture', () => {
    expect(() => validateDefinition(fixtureDoc(), ctx)).not.toThrow();
  });

  it.each(cases)('with $what, at $path', ({ mutate, path, says }) => {
    const doc = fixtureDoc();
    mutate(doc);
    const error = errorsOf(doc);
    expect(error.code).toBe('VALIDATION');
    expect(error.errors?.map((e) => e.path)).toEqual([path]);
    if (says) expect(error.errors?.[0].message).toContain(says);
    expect(error.message).toContain(path);
  });
});

describe('validateDefinition reports every problem at once', () => {
  it('lists shape and semantic errors of different sections together', () => {
    const doc = fixtureDoc();
    doc.metadata.name = 'bad name';
    doc.source.connector = 'missing';
    doc.categories[2].parent = 'state';
    doc.analysis.detectors[0].params.percentualChange = -5;
    doc.analysis.specialDates[0] = '2024-02-30';
    const error = errorsOf(doc);
    expect(error.errors?.map((e) => e.path).sort()).toEqual([
      'analysis.detectors[0].params.percentualChange',
      'analysis.specialDates[0]',
      'categories[2].parent',
      'metadata.name',
      'source.connector',
    ]);
    expect(error.message).toContain('(and 4 more)');
  });

  it('rejects a body that is not an object', () => {
    for (const body of [null, 'text', 42, []]) {
      expect(errorsOf(body).errors?.length).toBeGreaterThan(0);
    }
  });
});
