/**
 * `service-cli export`: what exists, written in the format `apply` reads, so that applying the folder to the
 * same service changes nothing. Secrets are written as `${env:NAME}` references, never as values.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import type { ApiClient } from '../http-client';
import { exportedExtras, shareableUsers } from './filter-extras';
import { FILTER_READ_ONLY } from './plan';
import { SECRET_ENV_PREFIX } from './references';

const VIEWS = '/api/v1/dataviews';
const FILTERS = '/api/v1/anomaly-filters';

export interface Exported {
  files: string[];
  /** Environment variables `apply` will need: one per secret left out. */
  env: string[];
  /** Data views left out because only an administrator reads their whole definition. */
  skippedViews: boolean;
}

const yaml = (doc: unknown) => stringify(doc, { lineWidth: 0, aliasDuplicateObjects: false });

/** A file name from a resource name: lower case, safe characters only. */
export function slug(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'unnamed'
  );
}

/** The variable the URL of the subscription named `name` is read from (apply reads only ANOMALY_MONITOR_SECRET_*). */
export function envNameFor(name: string): string {
  return `${SECRET_ENV_PREFIX}ALERT_${name
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')}_URL`;
}

const present = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

function alertDocument(s: Record<string, any>, env: string[]): Record<string, unknown> {
  // A webhook URL may hold a token (in its path or query) as a Slack URL does: both are references.
  const target = s.channel === 'email' ? { email: s.target } : { url: `\${env:${envNameFor(s.name)}}` };
  if (s.channel !== 'email') env.push(envNameFor(s.name));
  return {
    kind: 'alert',
    name: s.name,
    filter: s.filterName,
    channel: s.channel,
    ...target,
    mode: s.mode,
    digestHour: s.digestHour,
    digestWeekday: s.digestWeekday,
    enabled: s.enabled,
  };
}

/** One file name per resource, unique within its folder. */
function unique(taken: Set<string>, base: string, id: number): string {
  const name = taken.has(base) ? `${base}-${id}` : base;
  taken.add(name);
  return `${name}.yaml`;
}

/** Writes `dataviews/<domain>/<name>.yaml`, `filters/<name>.yaml` (a filter, then your subscriptions on it) and `alerts/<name>.yaml` (yours on filters shared with you). */
export async function exportConfiguration(api: ApiClient, dir: string): Promise<Exported> {
  const result: Exported = { files: [], env: [], skippedViews: false };
  const write = async (rel: string, text: string) => {
    const full = path.join(dir, rel);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, text);
    result.files.push(rel);
  };
  const me = await api.get<{ role: string }>('/api/v1/auth/me');
  if (me.role === 'admin') {
    const taken = new Set<string>();
    for (const v of await api.get<Array<{ id: number; domain: string; name: string }>>(VIEWS)) {
      const { id, state, createdAt, updatedAt, ...definition } = await api.get<Record<string, unknown>>(
        `${VIEWS}/${v.id}`,
        { query: { compact: true } },
      );
      const file = unique(taken, `${slug(v.domain)}/${slug(v.name)}`, v.id);
      // The lifecycle state travels with the definition: apply deploys and enables to reach it.
      await write(path.join('dataviews', file), yaml({ ...definition, state }));
    }
  } else result.skippedViews = true;

  const filters = await api.get<Array<Record<string, any>>>(FILTERS);
  const alerts = await api.get<Array<Record<string, any>>>(`${FILTERS}/alerts`);
  const owned = new Set<number>();
  const taken = new Set<string>();
  const mine = filters.filter((x) => x.isOwner !== false);
  const emails = mine.some((f) => f.sharedWith?.length)
    ? new Map([...(await shareableUsers(api))].map(([email, id]) => [id, email] as const))
    : new Map<number, string>();
  for (const f of mine) {
    owned.add(f.id);
    const settings = present(
      Object.fromEntries(Object.entries(f).filter(([k]) => !FILTER_READ_ONLY.includes(k) && k !== 'name')),
    );
    const docs = [
      { kind: 'filter', name: f.name, ...settings, ...exportedExtras(f, emails) },
      ...alerts.filter((s) => s.filterId === f.id).map((s) => alertDocument(s, result.env)),
    ];
    await write(path.join('filters', unique(taken, slug(f.name), f.id)), docs.map(yaml).join('---\n'));
  }
  const alertNames = new Set<string>();
  for (const s of alerts.filter((x) => !owned.has(x.filterId)))
    await write(
      path.join('alerts', unique(alertNames, slug(s.name), s.id)),
      yaml(alertDocument(s, result.env)),
    );
  return result;
}
