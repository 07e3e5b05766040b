import { describe, expect, it } from 'vitest';
import { csvField, recordsToCsv } from '../../../lib/anomalies/csv';
import { parsePageQuery, sortRecords } from '../../../lib/anomalies/pages';
import type { AnomalyRecord } from '../../../lib/filters/types';

describe('CSV of anomaly records', () => {
  it('quotes what needs quoting and nothing else', () => {
    expect(csvField('Brno')).toBe('Brno');
    expect(csvField('Brno, centre')).toBe('"Brno, centre"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('two\nlines')).toBe('"two\nlines"');
    expect(csvField('cr\rhere')).toBe('"cr\rhere"');
    expect(csvField(' padded')).toBe('" padded"');
    expect(csvField(null)).toBe('');
    expect(csvField(undefined)).toBe('');
    expect(csvField(Number.NaN)).toBe('');
    expect(csvField(-12.5)).toBe('-12.5');
    expect(csvField(true)).toBe('true');
  });

  it('defuses texts a spreadsheet would run as formulas, but not numbers written as text', () => {
    expect(csvField('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvField('+1+2')).toBe("'+1+2");
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('-5')).toBe('-5');
    expect(csvField('-x')).toBe("'-x");
  });

  it('writes every field in record order, then the union of categories, with a CRLF after each line', () => {
    const csv = recordsToCsv([
      { id: 1, type: 'DOD', types: ['DOD', 'WOW'], categories: { country: 'CZ', type: 'x' }, comments: [] },
      { id: 2, measure: 'count', categories: { country: 'DE', city: 'Berlin' }, members: [{ id: 3 }] },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'id,type,types,comments,measure,members,country,category:type,city',
      '1,DOD,DOD; WOW,,,,CZ,x,',
      '2,,,,count,"[{""id"":3}]",DE,,Berlin',
      '',
    ]);
  });
});

describe('CSV of incident rows', () => {
  it('writes the incident as its root causes, the share they explain, its broad series, change and size', () => {
    const incident = {
      id: 7,
      size: 5,
      broad: { categories: { region: 'South', city: null, channel: null }, change: -160, changePct: -20 },
      rootCauses: [
        { categories: { region: 'South', city: 'Milan', channel: 'app' }, change: -150, explainsPct: 93.75 },
        { categories: { region: 'South', city: 'Rome', channel: 'app' }, change: -8, explainsPct: 5 },
        {
          categories: { region: 'South', city: 'Rome', channel: 'web' },
          change: 4,
          explainsPct: 0,
          explainsNote: 'a rise against a fall of the broad series: -3 % of its change',
        },
      ],
    };
    const csv = recordsToCsv([
      { id: 1, incidentId: 7, incident, categories: { region: 'South', city: 'Milan', channel: 'app' } },
      { id: 2, incidentId: null, categories: { region: 'North', city: null, channel: null } },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'id,incidentId,rootCause,rootCauseExplainsPct,rootCauseExplainsNote,broadSeries,broadChange,broadChangePct,incidentSize,region,city,channel',
      '1,7,region=South; city=Milan; channel=app | region=South; city=Rome; channel=app | region=South; city=Rome; channel=web,98.8,region=South; city=Rome; channel=web: a rise against a fall of the broad series: -3 % of its change,region=South,-160,-20,5,South,Milan,app',
      '2,,,,,,,,,North,,',
      '',
    ]);
  });
});

describe('paging filter results', () => {
  const rec = (id: number, changePct: number | null, city: string) =>
    ({ id, changePct, categories: { city }, comments: [] }) as unknown as AnomalyRecord;
  const records = [rec(1, 5, 'b'), rec(2, null, 'a'), rec(3, -7, 'c'), rec(4, 5, 'a')];

  it('sorts by a column with nulls last both ways and ties in rank order', () => {
    expect(sortRecords(records, 'changePct', 'asc').map((r) => r.id)).toEqual([3, 1, 4, 2]);
    expect(sortRecords(records, 'changePct', 'desc').map((r) => r.id)).toEqual([1, 4, 3, 2]);
    expect(sortRecords(records, 'categories.city', 'asc').map((r) => r.id)).toEqual([2, 4, 1, 3]);
    expect(sortRecords(records, 'rank', 'desc').map((r) => r.id)).toEqual([4, 3, 2, 1]);
  });

  it('reads the parameters or none, and names a bad one', () => {
    expect(parsePageQuery({})).toBeNull();
    expect(parsePageQuery({ pageSize: '10' })).toEqual({
      offset: 0,
      pageSize: 10,
      sortBy: 'rank',
      order: 'asc',
    });
    for (const [k, v] of [
      ['offset', '-1'],
      ['pageSize', '1001'],
      ['sortBy', 'categories.'],
      ['order', 'down'],
    ]) {
      expect(() => parsePageQuery({ [k]: v }), k).toThrow(
        expect.objectContaining({ errors: [expect.objectContaining({ path: k })] }),
      );
    }
  });
});
