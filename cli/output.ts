/** What the CLI prints: JSON with --json, otherwise readable tables and records; notices and errors go to stderr. */
import type { Problem } from './errors';
import { printable, printableJson } from './printable';

/** A table column: header and how to read the cell; `max` truncates long text. */
export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  max?: number;
}

export type Writer = (text: string) => void;

/** A column that reads one field. */
export function col<T = any>(header: string, key: string, max?: number): Column<T> {
  return { header, value: (row) => (row as Record<string, unknown>)[key], max };
}

function formatNumber(n: number): string {
  if (Number.isInteger(n)) return String(n);
  return String(Math.round(n * 100) / 100);
}

/** One value as text: lists joined by ', ', objects as `key=value` pairs, null as empty. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return formatNumber(value);
  if (Array.isArray(value)) return value.map(cell).join(', ');
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}=${v === null ? '*' : cell(v)}`)
      .join(', ');
  }
  return printable(
    String(value)
      .replace(/\s*\n\s*/g, ' ')
      .replace(/\t/g, ' '),
    false,
  );
}

function truncate(text: string, max: number | undefined): string {
  if (!max || text.length <= max) return text;
  return `${text.slice(0, max - 1)}…`;
}

/** Everything printed goes through `printable` (cli/printable.ts): no terminal control characters. */
export class Output {
  private readonly out: Writer;
  private readonly err: Writer;

  constructor(
    readonly json: boolean,
    out: Writer = (t) => process.stdout.write(t),
    err: Writer = (t) => process.stderr.write(t),
  ) {
    this.out = (t) => out(printable(t));
    this.err = (t) => err(printable(t));
  }

  /** Prints `value` as JSON with --json, otherwise runs the human rendering. */
  result(value: unknown, human: () => void): void {
    if (this.json) this.out(`${printableJson(value ?? null, 2)}\n`);
    else human();
  }

  /** Text as it is (a YAML document). */
  raw(text: string): void {
    this.out(text.endsWith('\n') ? text : `${text}\n`);
  }

  line(text = ''): void {
    this.out(`${text}\n`);
  }

  /** A notice that is not the result (progress, warnings): stderr, and none with --json, whose answer holds it all. */
  notice(text: string): void {
    if (!this.json) this.err(`${text}\n`);
  }

  /** Rows under aligned headers; `empty` when there are none. */
  table<T>(rows: T[], columns: Column<T>[], empty = 'Nothing found.'): void {
    if (rows.length === 0) {
      this.line(empty);
      return;
    }
    const cells = rows.map((r) => columns.map((c) => truncate(cell(c.value(r)), c.max)));
    const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i].length)));
    const fmt = (parts: string[]) =>
      parts
        .map((p, i) => (i === parts.length - 1 ? p : p.padEnd(widths[i])))
        .join('  ')
        .trimEnd();
    this.line(fmt(columns.map((c) => c.header.toUpperCase())));
    for (const r of cells) this.line(fmt(r));
  }

  /** One record as `label: value` lines; `fields` picks and orders them (default: every key). */
  record(value: Record<string, unknown>, fields?: Array<[string, unknown]>): void {
    const pairs: Array<[string, unknown]> = fields ?? Object.entries(value);
    const width = Math.max(...pairs.map(([k]) => k.length));
    for (const [k, v] of pairs) this.line(`${`${k}:`.padEnd(width + 1)} ${cell(v)}`);
  }

  /** The problem's detail, then each field at fault as `path: message`; with --json the problem itself. */
  error(message: string, problem?: Problem): void {
    if (this.json) {
      this.err(
        `${printableJson(problem ? { ...problem, detail: problem.detail ?? message } : { detail: message })}\n`,
      );
      return;
    }
    this.err(`Error: ${message}\n`);
    for (const e of problem?.errors ?? []) this.err(`  ${e.path || '(body)'}: ${e.message}\n`);
  }
}
