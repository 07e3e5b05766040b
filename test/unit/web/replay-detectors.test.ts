/** The detector behind a replay's record, read from the edited text: its chart's expectation is that detector's. */
import { describe, expect, it } from 'vitest';
import { detectorOf, editedDetectors } from '../../../web/src/lib/replay-detectors';

const TEXT = `
metadata: { name: sales, domain: retail }
analysis:
  detectors:
    - type: dod
      params: { percentualChange: 25 }
    - type: spike
      params: { threshold: 8 }
    - type: dod
      params: { percentualChange: 60, windowDays: 7 }
`;

describe('the edited detector of a replayed record', () => {
  it('reads the detectors of the edited text, and none from text it cannot read', () => {
    expect(editedDetectors(TEXT).map((d) => d.type)).toEqual(['dod', 'spike', 'dod']);
    expect(editedDetectors('analysis: [unclosed')).toEqual([]);
    expect(editedDetectors('analysis: { detectors: [ { params: {} } ] }')).toEqual([]);
  });

  it('takes the detector at the record index when it is of its type (a record the change publishes)', () => {
    const detectors = editedDetectors(TEXT);
    expect(detectorOf(detectors, { type: 'DOD', detectorIndex: 2 })?.params).toEqual({
      percentualChange: 60,
      windowDays: 7,
    });
    expect(detectorOf(detectors, { type: 'Spike', detectorIndex: 1 })?.params).toEqual({ threshold: 8 });
  });

  it('else the first of its type (a removed record, indexed in the saved definition), else none', () => {
    const detectors = editedDetectors(TEXT);
    expect(detectorOf(detectors, { type: 'DOD', detectorIndex: 1 })?.params).toEqual({
      percentualChange: 25,
    });
    expect(detectorOf(detectors, { type: 'WOW', detectorIndex: 0 })).toBeUndefined();
  });
});
