import { describe, expect, it } from 'vitest';
import { checkDetectorParams } from '../../../lib/dataviews/definition/detector-checks';
import {
  DETECTOR_PARAM_SPECS,
  DETECTOR_TYPES,
  detectorTypeOf,
  withDefaults,
} from '../../../lib/dataviews/definition/detector-params';

describe('the detector params table', () => {
  it('knows the thirteen detector codes', () => {
    expect(DETECTOR_TYPES).toEqual([
      'dod',
      'wow',
      'mom',
      'qoq',
      'mpy',
      'gap',
      'spike',
      'changepoint',
      'dt',
      'cw',
      'peer',
      'mix',
      'cardinality',
    ]);
  });

  it.each(DETECTOR_TYPES)('gives %s the common params with their defaults', (type) => {
    const params = withDefaults(type) as unknown as Record<string, unknown>;
    expect(params).toMatchObject({ useSpecialDates: false, mode: 'both', minVolume: 0 });
    expect(params).not.toHaveProperty('minValue');
    expect(params).not.toHaveProperty('maxValue');
    expect(Object.keys(DETECTOR_PARAM_SPECS[type])).toEqual(
      expect.arrayContaining(['useSpecialDates', 'mode', 'minValue', 'maxValue', 'minVolume']),
    );
  });

  it('documents the defaults of the detector-specific params', () => {
    expect(withDefaults('dod').percentualChange).toBe(30);
    expect(withDefaults('gap')).toMatchObject({ longerThan: 0 });
    expect(withDefaults('gap')).not.toHaveProperty('shorterThan');
    expect(withDefaults('spike')).toMatchObject({ threshold: 3.5, window: 28 });
    expect(withDefaults('changepoint')).toMatchObject({ minSegment: 14, threshold: 5 });
    expect(withDefaults('dt')).toMatchObject({ sensitivity: 3, window: 56 });
    expect(withDefaults('mix')).toMatchObject({ percentualChange: 20, baselineDays: 28 });
  });

  it('lets overrides win over defaults', () => {
    expect(withDefaults('spike', { threshold: 5 })).toMatchObject({ threshold: 5, window: 28 });
  });

  it('describes every param', () => {
    for (const type of DETECTOR_TYPES) {
      for (const spec of Object.values(DETECTOR_PARAM_SPECS[type]))
        expect(spec.description.length).toBeGreaterThan(10);
    }
  });
});

describe('detectorTypeOf', () => {
  it('reads a detector type in any case', () => {
    expect(detectorTypeOf('ChangePoint')).toBe('changepoint');
    expect(detectorTypeOf('DOD')).toBe('dod');
  });

  it('knows no other types', () => {
    expect(detectorTypeOf('zscore')).toBeUndefined();
    expect(detectorTypeOf(3)).toBeUndefined();
  });
});

describe('checkDetectorParams', () => {
  it('reports each bad param at its own path', () => {
    const { errors } = checkDetectorParams('dt', { sensitivity: 0, window: 7.5, colour: 'red' }, 'p');
    expect(errors.map((e) => e.path).sort()).toEqual(['p.colour', 'p.sensitivity', 'p.window']);
  });

  it('refuses numbers YAML can write but a detector cannot use', () => {
    const { errors } = checkDetectorParams('spike', { threshold: Number.POSITIVE_INFINITY }, 'p');
    expect(errors).toEqual([{ path: 'p.threshold', message: 'must be a finite number' }]);
  });

  it('accepts a gap without an upper bound', () => {
    expect(checkDetectorParams('gap', { longerThan: 3 }, 'p')).toEqual({
      params: withDefaults('gap', { longerThan: 3 }),
      errors: [],
    });
  });
});
