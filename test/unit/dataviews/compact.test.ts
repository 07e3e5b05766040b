/** The compact form of a definition: only what differs from the defaults, and it validates back to the same definition. */
import { describe, expect, it } from 'vitest';
import { compactDefinition } from '../../../lib/dataviews/definition/compact';
import { definitionToYaml, parseDefinitionBody } from '../../../lib/dataviews/definition/parse';
import { validateDefinition } from '../../../lib/dataviews/definition/validate';
import { ctx, fixtureDoc } from './fixture';

describe('the compact form of a definition', () => {
  it('validates back to the stored definition, for every fixture', () => {
    for (const name of ['retail.yaml', 'minimal.yaml']) {
      const stored = validateDefinition(fixtureDoc(name), ctx);
      const compact = compactDefinition(stored);
      expect(validateDefinition(compact, ctx)).toEqual(stored);
      // Also through its YAML text, as the editor and the CLI export write it.
      expect(validateDefinition(parseDefinitionBody(definitionToYaml(compact)), ctx)).toEqual(stored);
    }
  });

  it('keeps only the params that differ from their defaults, and drops default settings', () => {
    const doc = fixtureDoc('minimal.yaml');
    doc.analysis = {
      fillGapMethod: 'zero',
      ignoreLastNDays: 2,
      detectors: [
        { type: 'DOD', params: { percentualChange: 30, minVolume: 50, mode: 'both' } },
        { type: 'gap', params: {} },
      ],
      specialDates: ['2024-12-24', { date: '2024-12-31', impact: 'negative' }],
    };
    const stored = validateDefinition(doc, ctx);
    // Stored, dod carries every one of its params.
    expect(Object.keys(stored.analysis.detectors[0].params).length).toBeGreaterThan(5);
    const compact = compactDefinition(stored) as Record<string, any>;
    expect(compact.analysis).toEqual({
      ignoreLastNDays: 2,
      detectors: [{ type: 'dod', params: { minVolume: 50 } }, { type: 'gap' }],
      specialDates: ['2024-12-24', { date: '2024-12-31', impact: 'negative' }],
    });
    expect(compact.source).not.toHaveProperty('loadMode');
    expect(compact.source.trigger).toBe('api');
  });

  it('leaves out analysis when nothing in it differs from the defaults', () => {
    const compact = compactDefinition(validateDefinition(fixtureDoc('minimal.yaml'), ctx));
    expect(compact).not.toHaveProperty('analysis');
    expect(definitionToYaml(compact).split('\n').length).toBeLessThan(16);
  });
});
