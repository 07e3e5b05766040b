/**
 * Plain objects keyed by names or values that come from data (category names and values, weights): a
 * name such as `constructor`, `toString` or `__proto__` is a valid category name or value, so such an
 * object is read by its own properties only (never an inherited `Object.prototype` member) and written
 * with a defined own property (`obj[key] = v` with the key `__proto__` would set the prototype instead).
 */

/** Whether `obj` holds `key` itself. */
export function hasOwn(obj: object | null | undefined, key: string): boolean {
  return obj !== null && obj !== undefined && Object.hasOwn(obj, key);
}

/** The value `obj` holds under `key` itself, else undefined. */
export function ownValue<T>(obj: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return hasOwn(obj, key) ? (obj as Record<string, T>)[key] : undefined;
}

/** Sets `obj[key]` as an own, enumerable property, whatever the key. */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
}
