import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PERFORMANCE_MD, writeSection } from '../../../scripts/bench/report';

const page = (text?: string) => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'bench-report-')), 'page.md');
  if (text !== undefined) writeFileSync(file, text);
  return file;
};

describe('the benchmarks report writer', () => {
  it('replaces only its own section and appends a missing one', () => {
    const file = page('# Title\n\n<!-- eval:before:start -->\nold\n<!-- eval:before:end -->\n\ntail\n');
    writeSection('eval:before', 'new', { file });
    writeSection('eval:after', 'later', { file });
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('<!-- eval:before:start -->\nnew\n<!-- eval:before:end -->\n\ntail');
    expect(text).not.toContain('old');
    expect(text.trimEnd().endsWith('<!-- eval:after:start -->\nlater\n<!-- eval:after:end -->')).toBe(true);
  });

  it('puts a heading before a section it appends, and none when it replaces one', () => {
    const file = page('# Performance\n');
    writeSection('bench-load', 'first run', { file, heading: 'Load and series build' });
    writeSection('bench-load', 'second run', { file, heading: 'Load and series build' });
    expect(readFileSync(file, 'utf8')).toBe(
      '# Performance\n\n## Load and series build\n\n<!-- bench-load:start -->\nsecond run\n<!-- bench-load:end -->\n',
    );
  });

  it('creates a missing page', () => {
    const file = page();
    writeSection('bench-filters', 'figures', { file });
    expect(readFileSync(file, 'utf8')).toBe(
      '<!-- bench-filters:start -->\nfigures\n<!-- bench-filters:end -->\n',
    );
  });

  it("writes docs/performance.md of the checkout by default, whose sections have the benches' markers", () => {
    const doc = readFileSync(PERFORMANCE_MD, 'utf8');
    for (const key of ['bench-load', 'bench-detection', 'bench-filters', 'bench-contributions'])
      expect(doc, key).toContain(`<!-- ${key}:start -->`);
  });
});
