/**
 * The one writer of the benchmarks' figures: a section of docs/performance.md (or of another page, such
 * as the evaluation's docs/detection-quality.md) between the markers `<!-- <key>:start -->` and
 * `<!-- <key>:end -->`. A run replaces its own section and leaves every other one alone; a section not
 * there yet is appended (under `heading` when given); a missing page is created.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** docs/performance.md of this checkout. */
export const PERFORMANCE_MD = path.resolve(import.meta.dirname, '../../docs/performance.md');

/** What a new docs/performance.md starts with. */
const PERFORMANCE_TITLE =
  '# Performance\n\nFigures measured by `npm run bench` on this machine; each section names its script.\n';

export interface SectionOptions {
  /** The page (default docs/performance.md). */
  file?: string;
  /** A `## heading` put before the section when it is appended. */
  heading?: string;
}

/** Writes `text` as section `key` of the page. */
export function writeSection(key: string, text: string, options: SectionOptions = {}): void {
  const file = options.file ?? PERFORMANCE_MD;
  const start = `<!-- ${key}:start -->`;
  const end = `<!-- ${key}:end -->`;
  const block = `${start}\n${text}\n${end}`;
  const appended = `${options.heading ? `## ${options.heading}\n\n` : ''}${block}\n`;
  if (!existsSync(file)) {
    writeFileSync(file, file === PERFORMANCE_MD ? `${PERFORMANCE_TITLE}\n${appended}` : appended);
    return;
  }
  const doc = readFileSync(file, 'utf8');
  const a = doc.indexOf(start);
  const b = doc.indexOf(end);
  writeFileSync(
    file,
    a >= 0 && b > a ? doc.slice(0, a) + block + doc.slice(b + end.length) : `${doc.trimEnd()}\n\n${appended}`,
  );
}
