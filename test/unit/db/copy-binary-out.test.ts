/** The rows of a `COPY … TO STDOUT (FORMAT binary)` answer, split into their fields. */
import { describe, expect, it } from 'vitest';
import { binaryCopyData, parseBinaryCopy } from '../../../lib/db/copy';

/** One encoded row: its fields, null for NULL. */
function encodeRow(fields: Array<Buffer | null>): Buffer {
  const parts: Buffer[] = [Buffer.alloc(2)];
  parts[0].writeInt16BE(fields.length, 0);
  for (const f of fields) {
    const len = Buffer.alloc(4);
    len.writeInt32BE(f === null ? -1 : f.length, 0);
    parts.push(len);
    if (f) parts.push(f);
  }
  return Buffer.concat(parts);
}

const int4 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n, 0);
  return b;
};

describe('parseBinaryCopy', () => {
  it('gives each row its fields as bytes, NULL as null and an empty value as empty bytes', () => {
    const rows = [
      [int4(7), int4(-3), Buffer.from([1, 2, 3]), null],
      [int4(2_000_000_000), int4(0), Buffer.alloc(0), Buffer.from('x')],
    ];
    const parsed = parseBinaryCopy(Buffer.concat(binaryCopyData(rows.map(encodeRow))));
    expect(parsed).toHaveLength(2);
    expect(parsed[0][0]?.readInt32BE(0)).toBe(7);
    expect(parsed[0][1]?.readInt32BE(0)).toBe(-3);
    expect([...(parsed[0][2] as Buffer)]).toEqual([1, 2, 3]);
    expect(parsed[0][3]).toBeNull();
    expect(parsed[1][0]?.readInt32BE(0)).toBe(2_000_000_000);
    expect(parsed[1][2]?.length).toBe(0);
    expect(parsed[1][3]?.toString()).toBe('x');
  });

  it('skips a header extension and reads no rows from an empty answer', () => {
    const data = Buffer.concat(binaryCopyData([]));
    expect(parseBinaryCopy(data)).toEqual([]);
    const ext = Buffer.concat([data.subarray(0, 15), int4(3), Buffer.from('abc'), data.subarray(19)]);
    expect(
      parseBinaryCopy(
        Buffer.concat([ext.subarray(0, ext.length - 2), encodeRow([int4(1)]), ext.subarray(ext.length - 2)]),
      ),
    ).toHaveLength(1);
  });

  it('refuses an answer without the signature, cut short or without its end marker', () => {
    const whole = Buffer.concat(binaryCopyData([encodeRow([int4(1), Buffer.from('abcdef')])]));
    expect(() => parseBinaryCopy(Buffer.from('COPY'))).toThrow(/signature/);
    expect(() => parseBinaryCopy(whole.subarray(0, whole.length - 6))).toThrow(/end marker/);
    expect(() => parseBinaryCopy(whole.subarray(0, whole.length - 2))).toThrow(/end marker/);
  });
});
