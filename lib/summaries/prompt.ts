/**
 * Builds the exact prompt of a filter summary: settings, the events the filter shows — each incident with its
 * root causes and its records, then records of no incident — with their citations, the aggregates, matched
 * comments and feedback; bounded in size. What the prompt holds is what a summary may cite (citations.ts).
 */
import type { AggregateRecord, AnomalyIncident, AnomalyRecord, FilterDefinition } from '../filters/types';
import { anomalyCitation, type Citable, type IncidentRef, incidentCitation } from './citations';

export interface PromptInput {
  filter: Pick<FilterDefinition, 'name' | 'comment' | 'timeRange' | 'dataViews' | 'sortBy' | 'limit'> &
    Partial<FilterDefinition>;
  range: { dateFrom: string; dateTo: string };
  anomalies: AnomalyRecord[];
  aggregates?: AggregateRecord[];
  /**
   * The incidents of records shown one by one (a filter without `incidents`), by `<dataViewId>:<incidentId>`;
   * incident rows carry their own.
   */
  incidents?: ReadonlyMap<string, AnomalyIncident>;
  instructions: string;
  /** Largest prompt in characters; records beyond it are left out and the prompt says so. */
  budgetChars?: number;
}

export interface BuiltPrompt {
  prompt: string;
  instructions: string;
  anomaliesIncluded: number;
  aggregatesIncluded: number;
  /** Incidents the prompt holds. */
  incidentsIncluded: number;
  leftOut: { anomalies: number; aggregates: number };
  chars: number;
  /** What a summary of this prompt may cite: the incidents and records it holds. */
  citable: Citable;
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

const pct = (v: number | null) => (v === null ? 'n/a' : `${v > 0 ? '+' : ''}${num(v, 1)} %`);

function feedbackLine(a: AnomalyRecord, indent: string): string | undefined {
  if (!a.feedback) return undefined;
  const label = a.feedback.status === 'not-anomaly' ? 'not an anomaly' : a.feedback.status;
  const note = a.feedback.note ? `: ${a.feedback.note.replace(/\s+/g, ' ')}` : '';
  return `${indent}feedback by ${a.feedback.email}: ${label}${note}`;
}

/** ` (good news)` / ` (bad news)` when the record's measure has a bad direction, else nothing. */
const newsText = (a: AnomalyRecord) => (a.news ? ` (${a.news} news)` : '');

/**
 * One record with its comments and feedback. `ofIncident`: the record is an incident row: its categories
 * and figures are its first root cause's, its type, SIN and SIM those of the incident's strongest record
 * on the broad series.
 */
export function anomalyLine(a: AnomalyRecord, indent = '', ofIncident = false): string {
  const lines = [
    `${indent}- ${anomalyCitation(a.id)} ${ofIncident ? `root cause ${cats(a.categories)} (its own figures; SIN of the broad series)` : `${a.dataView} | ${cats(a.categories)}`} | ` +
      `${a.measure === 'count' ? 'count' : 'value'} | ` +
      `${a.types && a.types.length > 1 && !ofIncident ? `types ${a.types.join('+')} (figures of ${a.type})` : `type ${a.type}`} | ${a.result}${newsText(a)} | ` +
      `${a.startDate}..${a.endDate} (${a.duration} d)${a.fiscalPeriod ? ` fiscal ${a.fiscalPeriod}` : ''} | actual ${num(a.actualValue)} vs expected ${num(a.predictedValue)} | ` +
      `change ${num(a.change)} (${num(a.changePct, 1)} %) | share ${num(a.sharePct, 1)} % | recurrence ${a.recurrence ?? 'n/a'} | ` +
      `SIN ${num(a.sin, 3)} SIM ${num(a.sim, 3)}`,
  ];
  for (const c of a.comments ?? []) {
    lines.push(
      `${indent}    comment by ${c.email} (${c.dateFrom}..${c.dateTo}, ${cats(c.categories)}): ${c.text.replace(/\s+/g, ' ')}`,
    );
  }
  const feedback = feedbackLine(a, `${indent}    `);
  if (feedback) lines.push(feedback);
  return lines.join('\n');
}

/** An incident: its citation, dates, root causes (each with the share of the change it explains) and broad series. */
export function incidentLine(ref: IncidentRef, dataView: string, result: string, i: AnomalyIncident): string {
  const causes = i.rootCauses.map((c) =>
    c.broad
      ? `the broad series itself (no smaller part explains it: it moved as a whole)`
      : c.effect === 'mix'
        ? `the mix moved (the shares of ${c.mixOf ?? 'the segments'} shifted; change per event ${num(c.change)}, explains ${num(c.explainsPct, 0)} %)`
        : `${cats(c.categories)}${c.effect === 'rate' ? ' rate per event' : ''} (actual ${num(c.actual)} vs expected ${num(c.expected)}, change ${num(c.change)}, ${pct(c.changePct)}, explains ${num(c.explainsPct, 0)} % of the broad series' change${c.explainsNote ? `: ${c.explainsNote}` : ''})`,
  );
  const b = i.broad;
  return (
    `- ${incidentCitation(ref)} ${dataView} | ${result} | ${i.startDate}..${i.endDate} | ` +
    `root cause${causes.length > 1 ? 's' : ''}: ${causes.join('; ') || 'n/a'} | ` +
    `broad series (context): ${cats(b.categories)} (actual ${num(b.actual)} vs expected ${num(b.expected)}, change ${num(b.change)}, ${pct(b.changePct)}) | ` +
    `measures ${i.measures.join('+')} | types ${i.types.join('+')} | ${i.size} record${i.size === 1 ? '' : 's'}`
  );
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

/** An event of the prompt: an incident with the records of it the filter shows, or one record of no incident. */
interface PromptEvent {
  incident?: { ref: IncidentRef; dataView: string; result: string; value: AnomalyIncident };
  records: AnomalyRecord[];
}

/** The shown records as events, in the filter's order (an incident where its first record ranks). */
function eventsOf(
  records: readonly AnomalyRecord[],
  incidents?: ReadonlyMap<string, AnomalyIncident>,
): PromptEvent[] {
  const out: PromptEvent[] = [];
  const byKey = new Map<string, PromptEvent>();
  for (const a of records) {
    const value =
      a.incident ??
      (a.incidentId === null || a.incidentId === undefined
        ? undefined
        : incidents?.get(`${a.dataViewId}:${a.incidentId}`));
    if (!value) {
      out.push({ records: [a] });
      continue;
    }
    const key = `${a.dataViewId}:${value.id}`;
    const known = byKey.get(key);
    if (known) {
      known.records.push(a);
      continue;
    }
    const event: PromptEvent = {
      incident: {
        ref: { dataViewId: a.dataViewId, incidentId: value.id },
        dataView: a.dataView,
        result: `${a.result}${newsText(a)}`,
        value,
      },
      records: [a],
    };
    byKey.set(key, event);
    out.push(event);
  }
  return out;
}

/** Fills the prompt event by event until the budget; what does not fit is counted and named at the end. */
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
    'An incident is one real event: the anomaly records of every series, detector and measure it moved. Its root cause is',
    'the combination of categories whose change explains the change of its broadest series (with the share it explains);',
    '"the broad series itself" means every part moved alike. Totals are over the window. Speak of a root cause by its own',
    'change and of the broad series as context ("Prague web +221 %, all of Czechia\'s +30 %"). The records of an incident follow it.',
    'Fields of a record: measure (value, or count: the number of items behind the value), type (for one event flagged by',
    'several detectors, every type, with the figures of the strongest), result (Positive = above expectation; "good news"',
    'or "bad news" when the data view says which direction of the measure is bad: say which it is), dates,',
    'actual vs expected value, change, share of the total of that measure, recurrence (earlier anomalies of this type,',
    'series and measure within 365 days), SIN and SIM (significance; higher matters more).',
    'Every sentence about an event cites its incident exactly as its line below starts ([incident <data view>:<id>]);',
    'a record of no incident is cited as [anomaly <id>]. Cite only what is listed below.',
  ].filter((l) => l !== undefined) as string[];
  const tail = [
    '',
    'Instructions:',
    input.instructions.trim() || 'Summarise the most important anomalies briefly.',
  ];
  let used = head.join('\n').length + tail.join('\n').length + 200;
  const body: string[] = [];
  const fits = (line: string) => used + line.length + 1 <= budget;
  const add = (line: string) => {
    body.push(line);
    used += line.length + 1;
  };
  let aggregatesIncluded = 0;
  const aggregates = input.aggregates ?? [];
  if (aggregates.length) body.push('', `Aggregates (${aggregates.length}):`);
  for (const g of aggregates) {
    const line = aggregateLine(g);
    if (!fits(line)) break;
    add(line);
    aggregatesIncluded++;
  }
  const events = eventsOf(input.anomalies, input.incidents);
  const incidentCount = events.filter((e) => e.incident).length;
  body.push(
    '',
    `Events (${incidentCount} incident${incidentCount === 1 ? '' : 's'}, ${events.length - incidentCount} record${
      events.length - incidentCount === 1 ? '' : 's'
    } of no incident; ${input.anomalies.length} shown row${input.anomalies.length === 1 ? '' : 's'}):`,
  );
  let anomaliesIncluded = 0;
  const citable = { incidents: [] as IncidentRef[], anomalies: [] as number[] };
  let full = false;
  for (const e of events) {
    if (e.incident) {
      const line = incidentLine(e.incident.ref, e.incident.dataView, e.incident.result, e.incident.value);
      if (!fits(line)) break;
      add(line);
      citable.incidents.push(e.incident.ref);
    }
    for (const a of e.records) {
      // An incident row carries its root cause's categories and figures.
      const line = anomalyLine(a, e.incident ? '  ' : '', a.incident !== undefined);
      if (!fits(line)) {
        full = true;
        break;
      }
      add(line);
      citable.anomalies.push(a.id);
      anomaliesIncluded++;
    }
    if (full) break;
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
    incidentsIncluded: citable.incidents.length,
    leftOut,
    chars: prompt.length,
    citable,
  };
}
