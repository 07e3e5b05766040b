import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../lib/dataviews/definition/validate';
import { ValidationError } from '../../../lib/shared/errors';
import { ctx, fixtureDoc } from './fixture';

type Doc = Record<string, any>;

function faults(mutate: (d: Doc) => void): Array<{ path: string; message: string }> {
  const doc = fixtureDoc() as Doc;
  mutate(doc);
  try {
    validateDefinition(doc, ctx);
  } catch (e) {
    if (e instanceof ValidationError) return e.errors as Array<{ path: string; message: string }>;
    throw e;
  }
  return [];
}

describe('holiday and fiscal calendars in a definition', () => {
  it('stores a country by its code, with its state, and the fiscal calendar', () => {
    const doc = fixtureDoc() as Doc;
    doc.analysis.calendar = { country: 'Austria', state: 'Wien', periods: true };
    doc.analysis.fiscal = { startMonth: 2, pattern: '4-5-4', weekStart: 'sunday' };
    doc.categories[0].calendar = 'country';
    doc.categories[0].calendarCodes = { Czechia: 'CZ' };
    const def = validateDefinition(doc, ctx);
    expect(def.analysis.calendar).toEqual({ country: 'AT', state: '9', periods: true });
    expect(def.analysis.fiscal).toEqual({ startMonth: 2, pattern: '4-5-4', weekStart: 'sunday' });
    expect(def.categories[0]).toMatchObject({ calendar: 'country', calendarCodes: { Czechia: 'CZ' } });
    // The stored form validates to itself.
    expect(validateDefinition(JSON.parse(JSON.stringify(def)), ctx)).toEqual(def);
  });

  it('leaves an empty calendar and a January fiscal year without a pattern unset', () => {
    const doc = fixtureDoc() as Doc;
    doc.analysis.calendar = { country: null };
    doc.analysis.fiscal = { startMonth: 1 };
    const def = validateDefinition(doc, ctx);
    expect(def.analysis.calendar).toBeUndefined();
    expect(def.analysis.fiscal).toBeUndefined();
  });

  it('names each calendar field at fault', () => {
    expect(faults((d) => (d.analysis.calendar = { country: 'Atlantis' }))).toEqual([
      { path: 'analysis.calendar.country', message: expect.stringContaining('not a country') },
    ]);
    expect(faults((d) => (d.analysis.calendar = { country: 'DE', state: 'XX' }))[0].path).toBe(
      'analysis.calendar.state',
    );
    expect(faults((d) => (d.analysis.calendar = { state: 'BY' }))[0]).toEqual({
      path: 'analysis.calendar.state',
      message: 'needs calendar.country',
    });
    expect(faults((d) => (d.analysis.calendar = { country: 'AT', region: 'x' }))[0].path).toBe(
      'analysis.calendar.region',
    );
    expect(faults((d) => (d.categories[0].calendar = 'city'))[0].path).toBe('categories[0].calendar');
    expect(
      faults((d) => {
        d.categories[0].calendar = 'country';
        d.categories[3].calendar = 'country';
      }),
    ).toEqual([{ path: 'categories[3].calendar', message: 'categories[0] already holds the country' }]);
    expect(faults((d) => (d.categories[1].calendarCodes = { North: 'DE' }))[0]).toEqual({
      path: 'categories[1].calendarCodes',
      message: 'needs calendar: country or state',
    });
    expect(
      faults((d) => {
        d.categories[0].calendar = 'country';
        d.categories[0].calendarCodes = { Czechia: 'XZ' };
      })[0].path,
    ).toBe('categories[0].calendarCodes.Czechia');
    expect(faults((d) => (d.analysis.fiscal = { startMonth: 13 }))[0].path).toBe(
      'analysis.fiscal.startMonth',
    );
    expect(faults((d) => (d.analysis.fiscal = { pattern: '4-4-4' }))[0].path).toBe('analysis.fiscal.pattern');
  });
});
