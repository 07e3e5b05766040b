import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DETECTOR_DEFAULTS, DETECTOR_TYPES } from '../../../lib/detection/params';
import { DETECTORS, anomalyTypeOf, getDetector } from '../../../lib/detection/registry';

const catalogue = readFileSync(new URL('../../../docs/detectors.md', import.meta.url), 'utf8');

describe('detector registry', () => {
  it('registers every detector type under its name with defaults', () => {
    for (const type of DETECTOR_TYPES) {
      expect(getDetector(type)?.type).toBe(type);
      expect(DETECTOR_DEFAULTS[type].mode).toBe('both');
    }
    expect(Object.keys(DETECTORS).sort()).toEqual([...DETECTOR_TYPES].sort());
    expect(getDetector('unknown')).toBeUndefined();
  });

  it('uses the spec’s display codes', () => {
    expect(DETECTOR_TYPES.map(anomalyTypeOf)).toEqual([
      'DOD',
      'WOW',
      'MOM',
      'QOQ',
      'MPY',
      'CW',
      'Gap',
      'Spike',
      'ChangePoint',
      'DT',
      'Peer',
      'Mix',
      'Cardinality',
    ]);
  });

  it('documents every detector in docs/detectors.md', () => {
    for (const type of DETECTOR_TYPES) {
      expect(catalogue).toContain(`### ${type} [${anomalyTypeOf(type)}]`);
    }
  });
});
