/** The fields at which two JSON values differ, as dotted paths (arrays compared whole). */

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** Key order does not matter; an absent key equals null. */
export function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .filter((k) => v[k] !== undefined && v[k] !== null)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v ?? null);
}

/** Paths where `desired` and `current` differ, to `depth` levels of objects. */
export function diffPaths(desired: unknown, current: unknown, prefix = '', depth = 3): string[] {
  if (canonical(desired) === canonical(current)) return [];
  if (depth > 0 && isObject(desired) && isObject(current)) {
    const keys = [...new Set([...Object.keys(desired), ...Object.keys(current)])].sort();
    return keys.flatMap((k) => diffPaths(desired[k], current[k], prefix ? `${prefix}.${k}` : k, depth - 1));
  }
  return [prefix || '(whole)'];
}
