/**
 * The editor's schema: the API's definition schema with each detector type's params spelt out from
 * the params table. A valid definition stays valid under it, and a param out of its range does not.
 */
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { DETECTOR_PARAM_SPECS, DETECTOR_TYPES } from '../../../lib/dataviews/definition/detector-params';
import { editorSchema } from '../../../lib/dataviews/definition/editor-schema';
import { validateDefinition } from '../../../lib/dataviews/definition/validate';
import { ctx, fixtureDoc } from './fixture';

const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(editorSchema());

const detectorsOf = (schema: Record<string, any>) => schema.properties.analysis.properties.detectors.items;

describe('the editor schema of a data view definition', () => {
  it('spells out the params of every detector type with their bounds, defaults and meaning', () => {
    const item = detectorsOf(editorSchema());
    expect(item.properties.type.enum).toEqual([...DETECTOR_TYPES]);
    expect(item.allOf).toHaveLength(DETECTOR_TYPES.length);
    const dod = item.allOf.find((b: any) => b.if.properties.type.const === 'dod').then.properties.params;
    expect(Object.keys(dod.properties)).toEqual(Object.keys(DETECTOR_PARAM_SPECS.dod));
    expect(dod.properties.percentualChange).toMatchObject({
      type: 'number',
      exclusiveMinimum: 0,
      default: 30,
    });
    expect(dod.properties.percentualChange.description).toMatch(/Minimum change in %.*\(> 0; default 30\)/);
    expect(dod.properties.mode.enum).toEqual(['positive', 'negative', 'both']);
    expect(dod.properties.maxMissingPct).toMatchObject({ minimum: 0, maximum: 100 });
    const peer = item.allOf.find((b: any) => b.if.properties.type.const === 'peer').then.properties.params;
    expect(peer.properties).toHaveProperty('baselineDays');
  });

  it('accepts what the service accepts, stored (every param) or as written', () => {
    const doc = fixtureDoc('retail.yaml');
    const stored = validateDefinition(doc, ctx);
    expect(validate(JSON.parse(JSON.stringify(stored))), JSON.stringify(validate.errors)).toBe(true);
    // Lower-case types as written by the fixture's own lower-case entries.
    const lower = { ...doc, analysis: { ...doc.analysis, detectors: stored.analysis.detectors } };
    expect(validate(lower), JSON.stringify(validate.errors)).toBe(true);
  });

  it('refuses a param out of its range and a param another type has', () => {
    const doc = fixtureDoc('minimal.yaml');
    doc.analysis = { detectors: [{ type: 'dod', params: { percentualChange: -5 } }] };
    expect(validate(doc)).toBe(false);
    expect(validate.errors?.some((e) => e.instancePath.endsWith('/params/percentualChange'))).toBe(true);
    doc.analysis = { detectors: [{ type: 'gap', params: { percentualChange: 5 } }] };
    expect(validate(doc)).toBe(false);
  });
});
