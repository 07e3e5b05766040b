import { describe, expect, it } from 'vitest';
import { checkDetectorParams } from '../../../lib/dataviews/definition/detector-checks';
import {
  DETECTOR_PARAM_SPECS,
  DETECTOR_TYPES,
  detectorTypeOf,
  withDefaults,
} from '../../../lib/dataviews/definition/detector-params';
import { engineParamNames } from '../../../lib/detection/param-specs';
import { DETECTOR_TYPES as ENGINE_TYPES, resolveParams } from '../../../lib/detection/params';

describe('the detector params table', () => {
  it('knows the thirteen detector codes', () => {
    expect(DETECTOR_TYPES).toEqual([
      'dod',
      'wow',
      'mom',
      'qoq',
      'mpy',
      'cw',
      'gap',
      'spike',
      'changepoint',
      'dt',
      'peer',
      'mix',
      'cardinality',
    ]);
  });

  it.each(DETECTOR_TYPES)('gives %s the common params with their defaults', (type) => {
    const params = withDefaults(type) as unknown as Record<string, unknown>;
    expect(params).toMatchObject({
      useSpecialDates: true,
      mode: 'both',
      maxMissingPct: 50,
      adaptAfterDays: 7,
    });
    expect(params).not.toHaveProperty('minValue');
    expect(params).not.toHaveProperty('maxValue');
    // Unset: 10 events for counts, a share of the view's total for an amount (lib/detection/materiality.ts).
    expect(params).not.toHaveProperty('minVolume');
    expect(Object.keys(DETECTOR_PARAM_SPECS[type])).toEqual(
      expect.arrayContaining([
        'useSpecialDates',
        'mode',
        'minValue',
        'maxValue',
        'minVolume',
        'maxMissingPct',
        'adaptAfterDays',
      ]),
    );
  });

  it('documents the defaults of the detector-specific params', () => {
    expect(withDefaults('dod').percentualChange).toBe(30);
    expect(withDefaults('wow').percentualChange).toBe(30);
    expect(withDefaults('mom').percentualChange).toBe(15);
    expect(withDefaults('cw').percentualChange).toBe(20);
    expect(withDefaults('gap')).toMatchObject({ longerThan: 0 });
    expect(withDefaults('gap')).not.toHaveProperty('shorterThan');
    expect(withDefaults('spike')).toMatchObject({ threshold: 4, minChangePct: 10, window: 28 });
    expect(withDefaults('changepoint')).toMatchObject({ minSegment: 14, threshold: 5, minChangePct: 20 });
    expect(withDefaults('dt')).toMatchObject({ sensitivity: 3, window: 56 });
    expect(withDefaults('mix')).toMatchObject({ percentualChange: 20, baselineDays: 28 });
    expect(withDefaults('cardinality')).toMatchObject({
      percentualChange: 10,
      minChange: 1,
      baselineDays: 28,
    });
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

describe('the definition and the engine', () => {
  it('know the same detector types', () => {
    expect([...DETECTOR_TYPES].sort()).toEqual([...ENGINE_TYPES].sort());
  });

  it.each(DETECTOR_TYPES)('run %s with the defaults the engine is evaluated with', (type) => {
    const stored = checkDetectorParams(type, {}, 'p');
    expect(stored.errors).toEqual([]);
    expect(engineParamNames(type, stored.params)).toEqual(resolveParams(type));
    const defaults = withDefaults(type) as unknown as Record<string, unknown>;
    expect(engineParamNames(type, defaults)).toEqual(resolveParams(type));
  });

  it('name the look-back of the baseline-table detectors baselineDays in a definition only', () => {
    expect(Object.keys(DETECTOR_PARAM_SPECS.peer)).toContain('baselineDays');
    expect(Object.keys(DETECTOR_PARAM_SPECS.peer)).not.toContain('window');
    expect(resolveParams('peer', { baselineDays: 14 })).toMatchObject({ window: 14 });
    expect(resolveParams('peer', { baselineDays: 14 })).not.toHaveProperty('baselineDays');
  });

  it('refuse the same out-of-range tuning params', () => {
    const bad = { minChangePct: -1, adaptAfterDays: 2.5, maxMissingPct: 101 };
    expect(checkDetectorParams('spike', bad, 'p').errors).toEqual([
      { path: 'p.minChangePct', message: 'must be at least 0' },
      { path: 'p.maxMissingPct', message: 'must be at most 100' },
      { path: 'p.adaptAfterDays', message: 'must be a whole number' },
    ]);
    expect(() => resolveParams('spike', bad)).toThrow('Invalid detector params');
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

  it('accepts a definition stored before the tuning params were exposed', () => {
    const old = {
      percentualChange: 20,
      baselineDays: 28,
      useSpecialDates: false,
      mode: 'both',
      minVolume: 0,
    };
    expect(checkDetectorParams('cardinality', old, 'p')).toEqual({
      // Stored values are kept, also where a default has changed since (minVolume, useSpecialDates).
      params: withDefaults('cardinality', { percentualChange: 20, useSpecialDates: false, minVolume: 0 }),
      errors: [],
    });
  });

  it('accepts the tuning params of the engine', () => {
    const tuned = { minChange: 3, adaptAfterDays: 0, maxMissingPct: 10 };
    expect(checkDetectorParams('cardinality', tuned, 'p')).toEqual({
      params: withDefaults('cardinality', tuned),
      errors: [],
    });
  });

  it('accepts a gap without an upper bound', () => {
    expect(checkDetectorParams('gap', { longerThan: 3 }, 'p')).toEqual({
      params: withDefaults('gap', { longerThan: 3 }),
      errors: [],
    });
  });
});
