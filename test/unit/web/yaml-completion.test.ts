/** Completion of the definition editor: where a key typed on a line belongs, and what fits there. */
import { describe, expect, it } from 'vitest';
import { editorSchema } from '../../../lib/dataviews/definition/editor-schema';
import { keyOptions, pathAt, valueOptions } from '../../../web/src/lib/yaml-completion';

const DOC = `schemaVersion: 3
metadata:
  name: sales
  domain: retail
source:
  connector: demo
categories:
  - name: country
    label: Country
  - name: city
    parent: country
analysis:
  detectors:
    - type: dod
      params:
        minVolume: 50
        X
    - type: gap
      params:
        X
  specialDates:
  - 2024-12-24
`;
const lines = DOC.split('\n');
const rowOf = (text: string, from = 0) => lines.findIndex((l, i) => i >= from && l.includes(text));

describe('the place of a key typed in the definition', () => {
  it('follows keys and list items by indentation, both list styles', () => {
    expect(pathAt(lines, rowOf('domain'), '  ')).toEqual(['metadata']);
    expect(pathAt(lines, rowOf('connector'), '')).toEqual([]);
    expect(pathAt(lines, rowOf('label: Country'), '    ')).toEqual(['categories', 0]);
    expect(pathAt(lines, rowOf('parent: country'), '    ')).toEqual(['categories', 1]);
    expect(pathAt(lines, rowOf('X'), '        ')).toEqual(['analysis', 'detectors', 0, 'params']);
    expect(pathAt(lines, rowOf('X', rowOf('type: gap')), '        ')).toEqual([
      'analysis',
      'detectors',
      1,
      'params',
    ]);
    // A new item: `- ` before the cursor.
    expect(pathAt(lines, rowOf('X', rowOf('type: gap')), '    - ')).toEqual(['analysis', 'detectors', 2]);
    expect(pathAt(lines, rowOf('- 2024-12-24'), '  - ')).toEqual(['analysis', 'specialDates', 0]);
  });
});

describe('what fits there', () => {
  const schema = editorSchema();

  it("offers a detector's own params, without those already written", () => {
    const dod = keyOptions(schema, lines, rowOf('X'), '        ').map((o) => o.label);
    expect(dod).toContain('percentualChange');
    expect(dod).toContain('maxMissingPct');
    expect(dod).not.toContain('minVolume');
    expect(dod).not.toContain('longerThan');
    const gap = keyOptions(schema, lines, rowOf('X', rowOf('type: gap')), '        ');
    expect(gap.map((o) => o.label)).toContain('longerThan');
    const longer = gap.find((o) => o.label === 'longerThan')!;
    expect(longer.detail).toBe('integer ≥ 0');
    expect(longer.info).toMatch(/runs of days without source data/i);
  });

  it('offers the keys of a section and of a new list item, not the read-only ones', () => {
    const meta = keyOptions(schema, lines, rowOf('domain'), '  ').map((o) => o.label);
    // The line being typed is not counted: domain may be written there.
    expect(meta).toEqual(['domain', 'description', 'tags', 'dataSource', 'enabled']);
    const top = keyOptions(schema, lines, rowOf('connector'), '').map((o) => o.label);
    expect(top).not.toContain('id');
    const item = keyOptions(schema, lines, rowOf('X', rowOf('type: gap')), '    - ').map((o) => o.label);
    expect(item).toEqual(['type', 'params']);
  });

  it('offers the values of a key: its choices with the default first, booleans', () => {
    expect(valueOptions(schema, lines, rowOf('X'), '        ', 'mode')).toEqual([
      'both',
      'positive',
      'negative',
    ]);
    expect(valueOptions(schema, lines, rowOf('X'), '        ', 'useSpecialDates')).toEqual(['true', 'false']);
    expect(valueOptions(schema, lines, rowOf('X', rowOf('type: gap')), '    - ', 'type')).toContain(
      'changepoint',
    );
    expect(valueOptions(schema, lines, rowOf('connector'), '', 'schemaVersion')).toEqual([]);
  });
});
