/** What a database error says about itself: its SQLSTATE, read the same way from postgres.js and PGlite. */

/** The SQLSTATE of a database error (it carries a severity) in the first links of a cause chain, when it matches. */
export function databaseErrorCode(error: unknown, pattern: RegExp): string | undefined {
  return databaseError(error, pattern)?.code;
}

/**
 * A foreign key refused the row (SQLSTATE 23503): the detail the server gave, such as
 * `Key (data_view_id)=(99) is not present in table "data_views".`, or '' without one.
 */
export function foreignKeyViolation(error: unknown): { detail: string } | undefined {
  const e = databaseError(error, /^23503$/);
  return e ? { detail: e.detail ?? '' } : undefined;
}

function databaseError(error: unknown, pattern: RegExp): { code: string; detail?: string } | undefined {
  let e: unknown = error;
  for (let i = 0; i < 5 && e && typeof e === 'object'; i++) {
    const o = e as { code?: unknown; severity?: unknown; detail?: unknown; cause?: unknown };
    if (typeof o.code === 'string' && pattern.test(o.code) && o.severity !== undefined)
      return { code: o.code, detail: typeof o.detail === 'string' ? o.detail : undefined };
    e = o.cause;
  }
  return undefined;
}
