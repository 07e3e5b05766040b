/**
 * A data view definition drafted from a load query's sample, in the compact form (only what differs
 * from the defaults): the chosen columns, the parent links the sample supports and detectors that
 * suit the length of its history. Pure; the editor shows the draft before anything is saved.
 */
import type { CategoryNode } from './grouping';
import { labelOf } from './query-profile';

export interface DraftChoice {
  name: string;
  domain: string;
  connector: string;
  loadQuery: string;
  dateColumn: string;
  valueColumn: string;
  countColumn?: string;
  categories: CategoryNode[];
}

/**
 * Detectors for `days` days of history: day over day and gaps always; week over week, spikes, month
 * over month and the same day a year before once the history covers what they compare with.
 */
export function suggestDetectors(days: number): Array<{ type: string }> {
  const out = ['dod', 'gap'];
  if (days >= 21) out.push('wow');
  if (days >= 28) out.push('spike');
  if (days >= 90) out.push('mom');
  if (days >= 400) out.push('mpy');
  return out.map((type) => ({ type }));
}

/** The compact definition of the choice: loaded every morning at 06:00, with the suggested detectors. */
export function draftDefinition(choice: DraftChoice, days: number): Record<string, unknown> {
  const source: Record<string, unknown> = {
    connector: choice.connector,
    dateColumn: choice.dateColumn,
    valueColumn: choice.valueColumn,
  };
  if (choice.countColumn) source.countColumn = choice.countColumn;
  source.cron = '0 0 6 * * *';
  source.loadQuery = choice.loadQuery.trim();
  return {
    schemaVersion: 3,
    metadata: { name: choice.name, domain: choice.domain },
    source,
    categories: choice.categories.map((c) =>
      c.parent
        ? { name: c.name, label: labelOf(c.name), parent: c.parent }
        : { name: c.name, label: labelOf(c.name) },
    ),
    analysis: { detectors: suggestDetectors(days) },
  };
}
