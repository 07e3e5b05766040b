/** Reads a value out of a JSON answer by a path such as `choices[0].message.content` or `message.content`. */
export function readPath(value: unknown, path: string): unknown {
  const parts = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((p) => p !== '');
  let cur: unknown = value;
  for (const part of parts) {
    if (cur === null || cur === undefined || typeof cur !== 'object') return undefined;
    cur = Array.isArray(cur) ? cur[Number(part)] : (cur as Record<string, unknown>)[part];
  }
  return cur;
}

/** Checks a response path's form: dotted names and [n] indexes. */
export function isValidResponsePath(path: string): boolean {
  return /^[A-Za-z_$][\w$-]*(\[\d+\])*(\.[A-Za-z_$][\w$-]*(\[\d+\])*)*$/.test(path);
}
