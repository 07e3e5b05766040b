/** The date column's forms the load reads, and the parts of a split load planned from the days present. */
import { describe, expect, it } from 'vitest';
import { MAX_LOAD_PARTS, partQuery, planParts } from '../../../lib/pipeline/load-split-plan';
import { toDay } from '../../../lib/pipeline/rows';

describe('the day of a date column', () => {
  it('reads a DATE or TIMESTAMP as its day in UTC, and ISO text as the date written', () => {
    expect(toDay(new Date('2024-02-29T00:00:00Z'))).toBe(20240229);
    expect(toDay(new Date('2024-02-29T23:30:00Z'))).toBe(20240229);
    expect(toDay('2024-02-29')).toBe(20240229);
    expect(toDay('2024-02-29 23:30:00')).toBe(20240229);
    expect(toDay('2024-02-29T23:30:00+05:00')).toBe(20240229);
    expect(toDay('2023-02-29')).toBe('is not a real date');
    expect(toDay('2024-02-290')).toMatch(/^must be a date/);
    expect(toDay(new Date(Number.NaN))).toBe('is not a real date');
  });
});

describe('the parts of a split load', () => {
  it('covers the chunks that hold rows, not the empty years before a sentinel date', () => {
    const parts = planParts([20240101, 20240601, 99991231], 1);
    expect(parts).toHaveLength(3);
    expect(parts[0].from).toBe(20231221);
    expect(parts[2].to).toBeGreaterThan(99991231);
    // Each part reaches to the next one's first chunk: every day from the first on is in one part.
    for (let i = 1; i < parts.length; i++) expect(parts[i].from).toBe(parts[i - 1].to);
  });

  it('holds more chunks per part past the cap', () => {
    const days = Array.from(
      { length: 1000 },
      (_, i) => 20000101 + Math.floor(i / 12) * 10000 + (i % 12) * 100,
    );
    expect(planParts(days, 1, 10)).toHaveLength(10);
    expect(planParts(days, 1).length).toBeLessThanOrEqual(MAX_LOAD_PARTS);
  });

  it('leaves the last part without an upper bound past 9999-12-31, and drops a trailing ;', () => {
    const [, last] = planParts([20240101, 99991231], 1);
    expect(partQuery('SELECT * FROM t;\n', 'day', last, 'date')).toBe(
      `SELECT * FROM (\nSELECT * FROM t\n) q WHERE q."day" >= DATE '9999-10-28'`,
    );
  });
});
