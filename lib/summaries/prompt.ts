/** Builds the exact prompt of a filter summary: settings, anomaly and aggregate records with ids, matched comments; bounded in size. */
import type { AggregateRecord, AnomalyRecord, FilterDefinition } from '../filters/types';

export interface PromptInput {
  filter: Pick<FilterDefinition, 'name' | 'comment' | 'timeRange' | 'dataViews' | 'sortBy' | 'limit'> &
    Partial<FilterDefinition>;
  range: { dateFrom: string; dateTo: string };
  anomalies: AnomalyRecord[];
  aggregates?: AggregateRecord[];
  instructions: string;
  /** Largest prompt in characters; records beyond it are left out and the prompt says so. */
  budgetChars?: number;
}

export interface BuiltPrompt {
  prompt: string;
  instructions: string;
  anomaliesIncluded: number;
  aggregatesIncluded: number;
  leftOut: { anomalies: number; aggregates: number };
  chars: number;
}

export const DEFAULT_PROMPT_BUDGET = 24_000;

const num = (v: number | null | undefined, digits = 2) =>
  v === null || v === undefined || !Number.isFinite(v) ? 'n/a' : Number(v.toFixed(digits)).toString();

function cats(c: Record<string, string | null>): string {
  const parts = Object.entries(c)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${v}`);
  return parts.length ? parts.join(', ') : 'all (total)';
}

export function anomalyLine(a: AnomalyRecord): string {
  const lines = [
    `- [anomaly ${a.id}] ${a.dataView} | ${cats(a.categories)} | ${a.measure === 'count' ? 'count' : 'value'} | ` +
      `${a.types && a.types.length > 1 ? `types ${a.types.join('+')} (figures of ${a.type})` : `type ${a.type}`} | ${a.result} | ` +
      `${a.startDate}..${a.endDate} (${a.duration} d) | actual ${num(a.actualValue)} vs expected ${num(a.predictedValue)} | ` +
      `change ${num(a.change)} (${num(a.changePct, 1)} %) | share ${num(a.sharePct, 1)} % | recurrence ${a.recurrence ?? 'n/a'} | ` +
      `SIN ${num(a.sin, 3)} SIM ${num(a.sim, 3)}`,
  ];
  for (const c of a.comments ?? []) {
    lines.push(
      `    comment by ${c.email} (${c.dateFrom}..${c.dateTo}, ${cats(c.categories)}): ${c.text.replace(/\s+/g, ' ')}`,
    );
  }
  if (a.feedback) {
    const label = a.feedback.status === 'not-anomaly' ? 'not an anomaly' : a.feedback.status;
    const note = a.feedback.note ? `: ${a.feedback.note.replace(/\s+/g, ' ')}` : '';
    lines.push(`    feedback by ${a.feedback.email}: ${label}${note}`);
  }
  return lines.join('\n');
}

function aggregateLine(g: AggregateRecord): string {
  const r = g as unknown as Record<string, unknown>;
  const common = cats((r.commonCategories ?? {}) as Record<string, string | null>);
  const different = ((r.differentCategories ?? []) as string[]).join(', ') || 'none';
  const members = ((r.members ?? []) as Array<{ id: number } | number>).map((m) =>
    typeof m === 'number' ? m : m.id,
  );
  return (
    `- [aggregate ${String(r.id)}] ${String(r.startDate)}..${String(r.endDate)} | ${r.measure === 'count' ? 'count' : 'value'} | ` +
    `types ${((r.types ?? []) as string[]).join('/')} | ` +
    `N=${String(r.n)} | common: ${common} | varying: ${different} | change ${num(r.change as number)} (${num(r.changePct as number, 1)} %) | ` +
    `members: ${members.join(', ')}`
  );
}

/** Fills the prompt record by record until the budget; what does not fit is counted and named at the end. */
export function buildPrompt(input: PromptInput): BuiltPrompt {
  const budget = input.budgetChars ?? DEFAULT_PROMPT_BUDGET;
  const f = input.filter;
  const head = [
    'You summarise anomalies found in daily business measures for the people who watch them.',
    '',
    `Filter: ${f.name}`,
    f.comment ? `Purpose: ${f.comment}` : undefined,
    `Data views: ${f.dataViews || 'all accessible'}`,
    `Time range: ${f.timeRange} (${input.range.dateFrom} to ${input.range.dateTo})`,
    f.anomalyTypes ? `Anomaly types: ${f.anomalyTypes}` : undefined,
    f.anomalyResult ? `Result: ${f.anomalyResult}` : undefined,
    f.categoriesFilter ? `Categories: ${f.categoriesFilter}` : undefined,
    `Ordered by ${f.sortBy} (descending), top ${f.limit}`,
    '',
    'Fields: measure (value, or count: the number of items behind the value), type (for one event flagged by several',
    'detectors, every type, with the figures of the strongest), result (Positive = above expectation), dates, actual vs',
    'expected value, change, share of the total of that measure, recurrence (earlier anomalies of this type, series and',
    'measure within 365 days), SIN and SIM (significance; higher matters more).',
    'Refer to records by their [anomaly id] or [aggregate id].',
  ].filter((l) => l !== undefined) as string[];
  const tail = [
    '',
    'Instructions:',
    input.instructions.trim() || 'Summarise the most important anomalies briefly.',
  ];
  let used = head.join('\n').length + tail.join('\n').length + 200;
  const body: string[] = [];
  let aggregatesIncluded = 0;
  const aggregates = input.aggregates ?? [];
  if (aggregates.length) body.push('', `Aggregates (${aggregates.length}):`);
  for (const g of aggregates) {
    const line = aggregateLine(g);
    if (used + line.length + 1 > budget) break;
    body.push(line);
    used += line.length + 1;
    aggregatesIncluded++;
  }
  body.push('', `Anomalies (${input.anomalies.length}):`);
  let anomaliesIncluded = 0;
  for (const a of input.anomalies) {
    const line = anomalyLine(a);
    if (used + line.length + 1 > budget) break;
    body.push(line);
    used += line.length + 1;
    anomaliesIncluded++;
  }
  if (input.anomalies.length === 0) body.push('(no anomalies in this range)');
  const leftOut = {
    anomalies: input.anomalies.length - anomaliesIncluded,
    aggregates: aggregates.length - aggregatesIncluded,
  };
  if (leftOut.anomalies || leftOut.aggregates) {
    body.push(
      '',
      `Left out for size: ${leftOut.anomalies} anomalies and ${leftOut.aggregates} aggregates of lower rank; ` +
        'do not assume they are unimportant, mention that the list was cut.',
    );
  }
  const prompt = [...head, ...body, ...tail].join('\n');
  return {
    prompt,
    instructions: tail[2],
    anomaliesIncluded,
    aggregatesIncluded,
    leftOut,
    chars: prompt.length,
  };
}
