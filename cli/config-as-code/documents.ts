/**
 * Reads a configuration folder (or one file) into the resources it declares: data views, filters and alert
 * subscriptions, each found by its name. Secrets come from the environment through
 * `${env:ANOMALY_MONITOR_SECRET_…}` in an alert's url only (references.ts), never from the files.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import { CliError } from '../errors';
import { checkReferences, resolveReferences } from './references';

export type Kind = 'dataview' | 'filter' | 'alert';

/** One declared resource: where it was written, its identity and its fields. */
export interface Declared {
  kind: Kind;
  /** Data views: `domain/name`; filters and alerts: their name. */
  key: string;
  file: string;
  body: Record<string, unknown>;
}

export interface Declarations {
  dataviews: Declared[];
  filters: Declared[];
  alerts: Declared[];
}

/** `domain/name` of a data view, compared without case as the service does. */
export const viewKey = (domain: unknown, name: unknown) => `${String(domain)}/${String(name)}`;

const isEnvRef = (v: unknown) => typeof v === 'string' && /^\$\{env:[A-Za-z0-9_]+\}$/.test(v.trim());

async function yamlFiles(target: string): Promise<string[]> {
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(target);
  } catch (e) {
    throw CliError.usage(
      `Cannot read ${target}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  if (info.isFile()) return [target];
  const found: string[] = [];
  for (const entry of (await readdir(target, { withFileTypes: true })).sort((a, b) =>
    a.name.localeCompare(b.name),
  )) {
    if (entry.name.startsWith('.')) continue;
    const full = path.join(target, entry.name);
    if (entry.isDirectory()) found.push(...(await yamlFiles(full)));
    else if (/\.ya?ml$/i.test(entry.name)) found.push(full);
  }
  return found;
}

function declared(doc: Record<string, unknown>, file: string, index: number): Declared {
  const where = `${file} (document ${index + 1})`;
  const { kind, ...body } = doc;
  const k = kind === undefined ? 'dataview' : String(kind).toLowerCase();
  if (k === 'dataview') {
    const meta = (body.metadata ?? {}) as Record<string, unknown>;
    if (typeof meta.domain !== 'string' || typeof meta.name !== 'string')
      throw CliError.usage(
        `${where}: a data view needs metadata.domain and metadata.name (or give kind: filter / alert).`,
      );
    return { kind: 'dataview', key: viewKey(meta.domain, meta.name), file, body };
  }
  if (k !== 'filter' && k !== 'alert')
    throw CliError.usage(`${where}: kind must be dataview, filter or alert, not '${String(kind)}'.`);
  if (typeof body.name !== 'string' || !body.name.trim())
    throw CliError.usage(`${where}: a ${k} needs a name, its identity.`);
  if (k === 'alert') {
    if (typeof body.filter !== 'string' || !body.filter.trim())
      throw CliError.usage(`${where}: alert '${body.name}' needs filter: the name of one of your filters.`);
    // A Slack URL is a credential: it must come from the environment, never from a file.
    if (String(body.channel) === 'slack' && body.url !== undefined && !isEnvRef(body.url))
      throw CliError.usage(
        `${where}: alert '${body.name}': a Slack url is a secret; write it as \${env:NAME}.`,
      );
  }
  return { kind: k, key: body.name.trim(), file, body: { ...body, name: body.name.trim() } };
}

/** Reads every `.yaml`/`.yml` file under `target` (or the file itself); each file may hold several documents. */
export async function readDeclarations(
  target: string,
  env: Record<string, string | undefined>,
): Promise<Declarations> {
  const result: Declarations = { dataviews: [], filters: [], alerts: [] };
  const seen = new Map<string, string>();
  for (const file of await yamlFiles(target)) {
    const lines = new LineCounter();
    const docs = parseAllDocuments(await readFile(file, 'utf8'), { lineCounter: lines });
    for (const [i, doc] of (Array.isArray(docs) ? docs : [docs]).entries()) {
      if (doc.errors.length) throw CliError.usage(`${file}: ${doc.errors[0].message}`);
      const value = doc.toJS();
      if (value === null || value === undefined) continue;
      if (typeof value !== 'object' || Array.isArray(value))
        throw CliError.usage(`${file} (document ${i + 1}): must be a mapping.`);
      const kind = String((value as Record<string, unknown>).kind ?? 'dataview').toLowerCase();
      const refs = checkReferences(doc.contents, kind, file, lines);
      const d = declared(value as Record<string, unknown>, file, i);
      const id = `${d.kind} ${d.key.toLowerCase()}`;
      const before = seen.get(id);
      if (before) throw CliError.usage(`${d.kind} '${d.key}' is declared twice: in ${before} and ${file}.`);
      seen.set(id, file);
      for (const ref of refs)
        d.body[ref.field] = resolveReferences(String(d.body[ref.field]), env, `${file}:${ref.line}`);
      result[d.kind === 'dataview' ? 'dataviews' : d.kind === 'filter' ? 'filters' : 'alerts'].push(d);
    }
  }
  return result;
}
