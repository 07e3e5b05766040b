/** Writing the evaluation's markdown into a section of a document (docs/detection-quality.md). */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/** Writes `text` between the section's markers of `file` (created, or the section appended, when missing). */
export function writeSection(file: string, section: string, text: string): void {
  const start = `<!-- eval:${section}:start -->`;
  const end = `<!-- eval:${section}:end -->`;
  const block = `${start}\n${text}\n${end}`;
  if (!existsSync(file)) {
    writeFileSync(file, `${block}\n`);
    return;
  }
  const old = readFileSync(file, 'utf8');
  const a = old.indexOf(start);
  const b = old.indexOf(end);
  writeFileSync(
    file,
    a >= 0 && b > a ? old.slice(0, a) + block + old.slice(b + end.length) : `${old.trimEnd()}\n\n${block}\n`,
  );
}
