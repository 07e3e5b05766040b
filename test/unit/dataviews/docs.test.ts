import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  DETECTOR_PARAM_SPECS,
  DETECTOR_TYPES,
  type ParamSpec,
} from '../../../lib/dataviews/definition/detector-params';
import { fixtureText } from './fixture';

const docs = readFileSync(
  fileURLToPath(new URL('../../../docs/dataview-definition.md', import.meta.url)),
  'utf8',
);
const COMMON = [
  'useSpecialDates',
  'mode',
  'minValue',
  'maxValue',
  'minVolume',
  'maxMissingPct',
  'adaptAfterDays',
];
/** Table rows of the page as trimmed cells (the formatter pads the columns). */
const rows = docs
  .split('\n')
  .filter((l) => l.startsWith('|'))
  .map((l) =>
    l
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim()),
  );

describe('docs/dataview-definition.md', () => {
  it.each(DETECTOR_TYPES)('lists every %s param with the default of the code', (type) => {
    const specs = DETECTOR_PARAM_SPECS[type] as Record<string, ParamSpec>;
    for (const [param, spec] of Object.entries(specs)) {
      if (COMMON.includes(param)) continue;
      const row = rows.find((r) => r[0] === type && r[1] === param);
      expect(row, `${type}.${param}`).toBeDefined();
      expect(row?.[3]).toBe(String(spec.default ?? '(unset)'));
    }
  });

  it('lists the common params with the default of the code', () => {
    const specs = DETECTOR_PARAM_SPECS.dod as Record<string, ParamSpec>;
    for (const param of COMMON) {
      const row = rows.find((r) => r[0] === `\`${param}\``);
      expect(row, param).toBeDefined();
      expect(row?.[2]).toBe(String(specs[param].default ?? '(unset)'));
    }
  });

  it('prints the retail fixture as its full example', () => {
    const body = fixtureText('retail.yaml')
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join('\n');
    expect(docs).toContain(body.trim());
  });
});
