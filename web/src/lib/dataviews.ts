/** Data view helpers: list normalisation and which management actions the state allows (spec's table). */
import type { DataViewDoc, DataViewState, DataViewSummary } from './types';

type Raw = Record<string, any>;

function tagList(tags: unknown): string[] {
  if (Array.isArray(tags)) return tags.map(String);
  if (typeof tags === 'string')
    return tags
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean);
  return [];
}

/** A list item as the UI needs it; accepts a flat record or a Fact JSON document. */
export function toSummary(raw: Raw): DataViewSummary {
  const m: Raw = raw.metadata ?? raw;
  const s: Raw = raw.source ?? raw;
  return {
    id: raw.id,
    name: m.name ?? '',
    domain: m.domain ?? '',
    description: m.description ?? '',
    tags: tagList(m.tags),
    connector: s.connector ?? '',
    state: (raw.state ?? 'prepared') as DataViewState,
    updatedAt: raw.updatedAt,
  };
}

export const dataViewLabel = (v: { domain: string; name: string }) => `${v.domain} / ${v.name}`;

export type ActionKey =
  | 'deploy'
  | 'enable'
  | 'disable'
  | 'undeploy'
  | 'clean'
  | 'clear'
  | 'load'
  | 'custom-load'
  | 'baselines'
  | 'process';

export interface ActionDef {
  key: ActionKey;
  label: string;
  /** API path below /dataviews/{id}. */
  path: string;
  /** Asks for a second click first. */
  confirm?: string;
  available(v: Pick<DataViewDoc, 'state' | 'source'>): boolean;
}

const deployed = (v: { state: DataViewState }) => v.state !== 'prepared';

/** The spec's management actions with their availability rules, in the order the page shows them. */
export const ACTIONS: ActionDef[] = [
  { key: 'deploy', label: 'Deploy', path: '/deploy', available: (v) => v.state === 'prepared' },
  { key: 'enable', label: 'Enable', path: '/enable', available: (v) => v.state === 'disabled' },
  { key: 'disable', label: 'Disable', path: '/disable', available: (v) => v.state === 'enabled' },
  {
    key: 'load',
    label: 'Start normal daily load',
    path: '/jobs/load',
    available: (v) => v.state === 'enabled',
  },
  {
    key: 'custom-load',
    label: 'Load data using custom query',
    path: '/jobs/custom-load',
    available: (v) => deployed(v) && Boolean(v.source?.customLoadQuery?.trim()),
  },
  {
    key: 'process',
    label: 'Start detection analytics jobs',
    path: '/jobs/process',
    available: (v) => v.state === 'enabled',
  },
  { key: 'baselines', label: 'Recalculate baseline tables', path: '/baselines', available: deployed },
  { key: 'clear', label: 'Remove all queued jobs', path: '/jobs/clear', available: deployed },
  {
    key: 'clean',
    label: 'Clean deployment',
    path: '/clean',
    confirm: 'Truncate all loaded data and anomalies of this view?',
    available: deployed,
  },
  {
    key: 'undeploy',
    label: 'Delete deployment',
    path: '/undeploy',
    confirm: 'Drop all tables and data of this view?',
    available: deployed,
  },
];

export const STATE_TEXT: Record<DataViewState, string> = {
  prepared: 'Prepared (not deployed)',
  disabled: 'Deployed, disabled',
  enabled: 'Deployed, enabled',
};

/** A definition to start from when creating a data view: only what differs from the defaults. */
export const NEW_DATA_VIEW_YAML = `schemaVersion: 3
metadata:
  name: my_view
  domain: sales
  description: ""
  tags: ""
source:
  connector: ""
  dateColumn: day
  valueColumn: amount
  countColumn: cnt
  loadMode: full
  trigger: cron
  cron: "0 0 6 * * *"
  loadQuery: |
    SELECT CAST(to_char(d, 'YYYYMMDD') AS integer) AS day, country, SUM(amount) AS amount, COUNT(*) AS cnt
    FROM sales GROUP BY d, country
categories:
  - name: country
    label: Country
analysis:
  detectors:
    - type: dod
      params:
        percentualChange: 40
`;
