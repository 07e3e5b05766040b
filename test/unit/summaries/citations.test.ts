import { describe, expect, it } from 'vitest';
import { checkCitations, INCIDENT_CITATION, incidentCitation } from '../../../lib/summaries/citations';

const citable = {
  incidents: [
    { dataViewId: 1, incidentId: 42 },
    { dataViewId: 1, incidentId: 43 },
    { dataViewId: 2, incidentId: 43 },
  ],
  anomalies: [7, 9],
};

describe('summary citations', () => {
  it('cite an incident with its data view, in one form the UI finds', () => {
    const text = `Sales fell in Vienna ${incidentCitation({ dataViewId: 1, incidentId: 42 })}.`;
    expect(text).toBe('Sales fell in Vienna [incident 1:42].');
    expect([...text.matchAll(INCIDENT_CITATION)].map((m) => [m[1], m[2]])).toEqual([['1', '42']]);
  });

  it('keep what the prompt held and list it once, in order of first citation', () => {
    const r = checkCitations(
      'A [incident 1:43] and B [incident 2:43]; again A [incident 1:43], C [anomaly 7].',
      citable,
    );
    expect(r.text).toBe('A [incident 1:43] and B [incident 2:43]; again A [incident 1:43], C [anomaly 7].');
    expect(r.incidents).toEqual([
      { dataViewId: 1, incidentId: 43 },
      { dataViewId: 2, incidentId: 43 },
    ]);
    expect(r.anomalies).toEqual([7]);
    expect(r.removed).toEqual([]);
  });

  it('remove citations of incidents and records the prompt did not hold, and report them', () => {
    const r = checkCitations(
      'Vienna dropped [incident 1:99]. Prague rose [anomaly 8], see [incident 1:42].',
      citable,
    );
    expect(r.text).toBe('Vienna dropped. Prague rose, see [incident 1:42].');
    expect(r.removed).toEqual(['[incident 1:99]', '[anomaly 8]']);
    expect(r.incidents).toEqual([{ dataViewId: 1, incidentId: 42 }]);
  });

  it('complete an incident cited without its view when one incident of the prompt has that id, else remove it', () => {
    const r = checkCitations('One [Incident 42], ambiguous [incident 43].', citable);
    expect(r.text).toBe('One [incident 1:42], ambiguous.');
    expect(r.removed).toEqual(['[incident 43]']);
  });

  it('split a list of citations into one citation each', () => {
    const r = checkCitations('Both [incidents 1:42, 2:43] and [anomalies 7 and 9].', citable);
    expect(r.text).toBe('Both [incident 1:42] [incident 2:43] and [anomaly 7] [anomaly 9].');
    expect(r.removed).toEqual([]);
  });

  it('leave text without citations as it is', () => {
    const text = 'Nothing happened  [see the chart].';
    expect(checkCitations(text, citable)).toEqual({ text, incidents: [], anomalies: [], removed: [] });
  });
});
