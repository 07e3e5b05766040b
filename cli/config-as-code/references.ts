/**
 * `${env:NAME}` references in declared configuration. A folder applied from CI may come from a pull
 * request: a reference anywhere would let its author copy any variable of the CI (the CLI's own API key)
 * into a webhook URL and receive it at the first alert. So a reference is read only where a secret
 * belongs — the `url` of an alert subscription (webhook or Slack; apply writes no other secret: SMTP
 * settings are not part of a folder) — and only from a variable named `ANOMALY_MONITOR_SECRET_*`.
 * Anywhere else, or naming another variable, it is refused with the file and line, before anything is
 * applied.
 */
import { isAlias, isMap, isPair, isScalar, isSeq, type LineCounter, type Node } from 'yaml';
import { CliError } from '../errors';

/** The only variables `apply` reads. */
export const SECRET_ENV_PREFIX = 'ANOMALY_MONITOR_SECRET_';

const REF = /\$\{env:([^}]*)\}/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The fields of a document of `kind` where a reference is read (top-level keys). */
const SECRET_FIELDS: Record<string, readonly string[]> = { alert: ['url'] };

/** A reference written where it is read: its field and line. */
export interface Reference {
  field: string;
  line: number;
}

interface Walk {
  file: string;
  lines: LineCounter;
  allowed: readonly string[];
  found: Reference[];
}

const lineOf = (w: Walk, node: { range?: [number, number, number] | null }) =>
  w.lines.linePos(node.range?.[0] ?? 0).line;

function checkScalar(w: Walk, node: Node, path: string[]): void {
  if (!isScalar(node) || typeof node.value !== 'string' || !node.value.includes('${env:')) return;
  const line = lineOf(w, node);
  const at = `${w.file}:${line}`;
  const field = path.join('.') || '(key)';
  if (path.length !== 1 || !w.allowed.includes(path[0]!))
    throw CliError.usage(
      `${at}: \${env:…} is read only in a secret field (an alert's url), not in ${field}; ` +
        'write the value itself.',
    );
  for (const [, name] of node.value.matchAll(REF))
    if (!NAME.test(name!) || !name!.startsWith(SECRET_ENV_PREFIX))
      throw CliError.usage(
        `${at}: ${field} refers to \${env:${name}}; apply reads only variables named ${SECRET_ENV_PREFIX}*.`,
      );
  w.found.push({ field, line });
}

function walk(w: Walk, node: unknown, path: string[]): void {
  if (!node || isAlias(node)) return;
  if (isMap(node)) {
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      // A key is never a secret field.
      checkScalar(w, pair.key as Node, [...path, '(key)']);
      const key = isScalar(pair.key) ? String(pair.key.value) : '?';
      walk(w, pair.value, [...path, key]);
    }
  } else if (isSeq(node)) {
    for (const [i, item] of node.items.entries()) walk(w, item, [...path, String(i)]);
  } else checkScalar(w, node as Node, path);
}

/** Checks where a document's references are written; answers those it may resolve. */
export function checkReferences(
  contents: unknown,
  kind: string,
  file: string,
  lines: LineCounter,
): Reference[] {
  const w: Walk = { file, lines, allowed: SECRET_FIELDS[kind] ?? [], found: [] };
  walk(w, contents, []);
  return w.found;
}

/** Every reference of `value` replaced by its variable; an unset one is a usage error naming file and line. */
export function resolveReferences(
  value: string,
  env: Record<string, string | undefined>,
  where: string,
): string {
  return value.replace(REF, (_m, name: string) => {
    const v = name.startsWith(SECRET_ENV_PREFIX) ? env[name] : undefined;
    if (v === undefined || v === '')
      throw CliError.usage(`${where}: the environment variable ${name} is not set.`);
    return v;
  });
}

/** The environment entries `apply` may read: those named ANOMALY_MONITOR_SECRET_*. */
export function secretEnv(env: Record<string, string | undefined>): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([k]) => k.startsWith(SECRET_ENV_PREFIX)));
}
