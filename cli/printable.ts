/**
 * Text the service sends (summaries, category values read from a source, other users' comments, problem
 * details) is printed without terminal control characters: an escape sequence in a value could move the
 * cursor, rewrite what was printed, retitle the window or, on some terminals, answer back. C0 (U+0000 to
 * U+001F), DEL and C1 (U+0080 to U+009F) are removed; multi-line text keeps its newlines, tabs and CRLF
 * line ends.
 */

// A lone CR (not of a CRLF) returns the cursor and lets a value overwrite the line before it.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed
const MULTILINE = /\r(?!\n)|[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed
const ONE_LINE = /[\u0000-\u001f\u007f-\u009f]/g;

/** `text` without control characters; `multiline` keeps newline, tab and CRLF. */
export function printable(text: string, multiline = true): string {
  return text.replace(multiline ? MULTILINE : ONE_LINE, '');
}

/** JSON as JSON.stringify writes it, with DEL and C1 written as \u escapes too (it escapes C0 only). */
export function printableJson(value: unknown, space?: number): string {
  return JSON.stringify(value, null, space).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
