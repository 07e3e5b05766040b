/** analysis.measureProperties: a bad direction and a scale per measure, checked and stored. */
import { describe, expect, it } from 'vitest';
import { validateDefinition } from '../../../lib/dataviews/definition';
import { ctx, fixtureDoc } from './fixture';

const errorsOf = (doc: unknown) => {
  try {
    validateDefinition(doc, ctx);
    return [];
  } catch (e) {
    return (e as { errors: Array<{ path: string; message: string }> }).errors;
  }
};

describe('measure properties', () => {
  it('stores each measure’s bad direction and scale, leaving out what is unset', () => {
    const doc = fixtureDoc();
    doc.analysis.measureProperties = {
      value: { badWhen: 'fall' },
      count: { badWhen: 'rise', scale: 'ratio' },
      ratio: null,
    };
    const def = validateDefinition(doc, ctx);
    expect(def.analysis.measureProperties).toEqual({
      value: { badWhen: 'fall' },
      count: { badWhen: 'rise', scale: 'ratio' },
    });
    // The stored form is itself valid and the same.
    expect(validateDefinition(JSON.parse(JSON.stringify(def)), ctx)).toEqual(def);
  });

  it('refuses an unknown direction, scale or measure, naming the path', () => {
    const doc = fixtureDoc();
    doc.analysis.measureProperties = { value: { badWhen: 'down', scale: 'log' }, amount: {} };
    const paths = errorsOf(doc).map((e) => e.path);
    expect(paths).toContain('analysis.measureProperties.value.badWhen');
    expect(paths).toContain('analysis.measureProperties.value.scale');
    expect(paths.some((p) => p.startsWith('analysis.measureProperties.amount'))).toBe(true);
  });

  it('count and ratio need a count column', () => {
    const doc = fixtureDoc();
    delete doc.source.countColumn;
    doc.analysis.measureProperties = { ratio: { badWhen: 'fall' } };
    expect(errorsOf(doc)).toContainEqual({
      path: 'analysis.measureProperties.ratio',
      message: 'ratio needs source.countColumn',
    });
  });
});
