/** Completion of the holiday calendar in the definition editor: country codes, then that country's state codes. */
import { describe, expect, it } from 'vitest';
import { editorSchema } from '../../../lib/dataviews/definition/editor-schema';
import { valueOptions, valueOptionsWithInfo } from '../../../web/src/lib/yaml-completion';

const DOC = `schemaVersion: 3
categories:
  - name: country
    label: Country
analysis:
  calendar:
    country: de
    state: X
    periods: X
`;
const lines = DOC.split('\n');
const rowOf = (text: string) => lines.findIndex((l) => l.includes(text));

describe('completing analysis.calendar', () => {
  const schema = editorSchema();

  it('offers the country codes with their names', () => {
    const options = valueOptionsWithInfo(schema, lines, rowOf('country: de'), '    ', 'country');
    expect(options).toContainEqual({ label: 'AT', info: 'Austria' });
    expect(options).toContainEqual({ label: 'CZ', info: 'Czech Republic' });
    expect(options.length).toBeGreaterThan(100);
  });

  it("offers the states of the country written above (any case), and the periods switch's values", () => {
    const states = valueOptionsWithInfo(schema, lines, rowOf('state: X'), '    ', 'state');
    expect(states).toContainEqual({ label: 'BY', info: 'Bayern' });
    expect(states.map((s) => s.label)).not.toContain('9');
    expect(valueOptions(schema, lines, rowOf('periods: X'), '    ', 'periods')).toEqual(['false', 'true']);
  });

  it('offers country and state as the calendar of a category', () => {
    expect(valueOptions(schema, lines, rowOf('label: Country'), '    ', 'calendar')).toEqual([
      'country',
      'state',
    ]);
  });
});
