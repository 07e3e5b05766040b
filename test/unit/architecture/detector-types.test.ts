/**
 * One list of detector types: the keys of the params table (lib/detection/param-specs.ts). The
 * registry, the definition checks and the JSON Schema of a definition follow it; this test fails
 * when one of them drifts.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDetectors } from '../../../lib/dataviews/definition/detector-checks';
import { DETECTOR_TYPES as DEFINITION_TYPES } from '../../../lib/dataviews/definition/detector-params';
import { PARAM_SPECS } from '../../../lib/detection/param-specs';
import { DETECTOR_TYPES } from '../../../lib/detection/params';
import { DETECTORS } from '../../../lib/detection/registry';

const schema = JSON.parse(
  readFileSync(path.resolve(import.meta.dirname, '../../../schemas/dataview.schema.json'), 'utf8'),
);

/** The detector `type` property of the definition schema. */
function schemaTypeProperty(): { description: string; enum?: string[] } {
  const detectors = schema.properties.analysis.properties.detectors;
  return detectors.items.properties.type;
}

/** "a, b, c or d (any case)." as [a, b, c, d]. */
function listed(description: string): string[] {
  const list = description.replace(/\s*\(any case\)\.?$/, '');
  return list.split(/,\s*|\s+or\s+/).map((s) => s.trim());
}

describe('the detector types', () => {
  it('are the keys of the params table, in its order', () => {
    expect(DETECTOR_TYPES).toEqual(Object.keys(PARAM_SPECS));
  });

  it('are the definition’s types and the registry’s names', () => {
    expect(DEFINITION_TYPES).toEqual(DETECTOR_TYPES);
    expect(Object.keys(DETECTORS)).toEqual([...DETECTOR_TYPES]);
  });

  it('are the ones the JSON Schema of a definition names', () => {
    expect(listed(schemaTypeProperty().description)).toEqual([...DETECTOR_TYPES]);
  });

  it('name every type in the message for an unknown one', () => {
    const { errors } = checkDetectors([{ type: 'nope' }], 'analysis.detectors');
    expect(errors.map((e) => e.message).join(' ')).toContain(DETECTOR_TYPES.join(', '));
  });
});
