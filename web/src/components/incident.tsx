/**
 * Incidents where people read (docs/incidents.md): the root cause of an incident row (its categories), the
 * share of the broad series' change it explains and a link to the incident; the incident's facts (root
 * causes, broad series, types, measures) in its detail.
 */
import './contributions.css';
import { fmt, pct } from '../lib/format';
import { Link } from '../lib/router';
import type { Anomaly, AnomalyIncident } from '../lib/types';
import { combinationText } from './contributions';

/** Where an incident is shown: /incidents/<view>/<incident>. */
export const incidentHref = (dataViewId: number, incidentId: number) =>
  `/incidents/${dataViewId}/${incidentId}`;

/** Share of the broad series' change the root causes explain together (each is within 0–100 already). */
export const explainedPct = (i: AnomalyIncident) =>
  Math.min(
    100,
    i.rootCauses.reduce((s, c) => s + c.explainsPct, 0),
  );

/** A combination by its values only (`Czechia · Prague · web`), `all` for the total. */
export function seriesName(c: Record<string, string | null>): string {
  const set = Object.values(c).filter((v) => v !== null);
  return set.length ? set.join(' · ') : 'all';
}

/** A signed change %: `+221.5 %`, `−39.6 %`, `–` when nothing was expected. */
export function signedPct(v: number | null | undefined): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '–';
  return `${v > 0 ? '+' : ''}${pct(v)}`;
}

type Cause = AnomalyIncident['rootCauses'][number];

/** What one root cause explains of the broad series' change: `explains all of Czechia's +29.6 %`. */
export function explainsText(c: Cause, i: AnomalyIncident): string {
  const of = `${seriesName(i.broad.categories)}'s ${signedPct(i.broad.changePct)}`;
  const share = c.explainsPct >= 99.5 ? 'all' : `${fmt(c.explainsPct)} %`;
  return `explains ${share} of ${of}${c.explainsNote ? ` (${c.explainsNote})` : ''}`;
}

/** True when the one root cause is the broad series itself (nothing broader moved): nothing to explain. */
const sameAsBroad = (i: AnomalyIncident) =>
  i.rootCauses.length === 1 &&
  combinationText(i.rootCauses[0].categories) === combinationText(i.broad.categories);

/** One root cause in a row: its name, its own change %, and what it explains of the broad series. */
function CauseLine({ c, i }: { c: Cause; i: AnomalyIncident }) {
  return (
    <span className="cause-line">
      <span className="cause">{causeText(c)}</span>{' '}
      <span className="cause-change">{signedPct(c.changePct)}</span>
      {!c.broad && !sameAsBroad(i) && <span className="muted"> — {explainsText(c, i)}</span>}
    </span>
  );
}

/**
 * The cell of an incident row: each root cause with its own change and what it explains of the broad
 * series' change ("Prague · web +221.5 % — explains all of Czechia's +29.6 %"), and the incident's link.
 */ /** A root cause: its combination, or for a ratio's mix the category whose shares moved. */
function causeText(c: AnomalyIncident['rootCauses'][number]): string {
  if (c.effect === 'mix') return `mix of ${c.mixOf ?? 'segments'} moved`;
  return `${combinationText(c.categories)}${c.effect === 'rate' ? ' (rate)' : ''}`;
}

export function RootCauseCell({ a }: { a: Anomaly }) {
  const i = a.incident;
  if (!i) return <>{combinationText(a.categories)}</>;
  const broad = i.rootCauses.length === 1 && i.rootCauses[0].broad;
  return (
    <span className="root-cause">
      {i.rootCauses.map((c) => (
        <CauseLine key={combinationText(c.categories)} c={c} i={i} />
      ))}{' '}
      <span className="muted">
        {broad ? 'the whole series moved · ' : null}
        <Link to={incidentHref(a.dataViewId, i.id)}>incident {i.id}</Link>
        {i.size > 1 ? ` · ${i.size} records` : ''}
      </span>
    </span>
  );
}

/** A series a row's chart can show: a root cause's, the broad series', or the record's own. */
export interface ChartSeries {
  seriesId: number;
  /** What the chart is labelled: "root cause: Prague · web", "broad series: Czechia". */
  label: string;
}

/**
 * The series a row's chart can show, the first drawn by default: an incident row's root causes (those the
 * cube holds a series for), then its broad series; a record's own series otherwise.
 */
export function chartSeriesOf(a: Anomaly): ChartSeries[] {
  const i = a.incident;
  if (!i) return [{ seriesId: a.seriesId, label: `series: ${seriesName(a.categories)}` }];
  const out: ChartSeries[] = [];
  for (const c of i.rootCauses)
    if (typeof c.seriesId === 'number' && !out.some((x) => x.seriesId === c.seriesId))
      out.push({ seriesId: c.seriesId, label: `root cause: ${seriesName(c.categories)}` });
  const broadId = i.broad.seriesId ?? (out.length === 0 ? a.seriesId : null);
  if (typeof broadId === 'number' && !out.some((x) => x.seriesId === broadId))
    out.push({ seriesId: broadId, label: `broad series: ${seriesName(i.broad.categories)}` });
  if (out.length === 0) out.push({ seriesId: a.seriesId, label: `series: ${seriesName(a.categories)}` });
  return out;
}

/** The incident's facts: root causes with their change, the broad series, types, measures, days. */
export function IncidentFacts({ incident: i }: { incident: AnomalyIncident }) {
  return (
    <dl className="incident-facts">
      <dt>Root cause</dt>
      <dd>
        <ul className="plain">
          {i.rootCauses.map((c) => (
            <li key={combinationText(c.categories)}>
              <strong>{combinationText(c.categories)}</strong>
              {c.broad ? ' (no smaller set explains it: the series as a whole)' : ''}: actual {fmt(c.actual)},
              expected {fmt(c.expected)}, change {c.change > 0 ? '+' : ''}
              {fmt(c.change)} ({signedPct(c.changePct)}){c.broad ? '' : ` — ${explainsText(c, i)}`}
            </li>
          ))}
        </ul>
      </dd>
      <dt>Broad series (context)</dt>
      <dd>
        {combinationText(i.broad.categories)}: actual {fmt(i.broad.actual)}, expected {fmt(i.broad.expected)},
        change {i.broad.change > 0 ? '+' : ''}
        {fmt(i.broad.change)} ({signedPct(i.broad.changePct)}) over the head record's window
      </dd>
      <dt>Detected by</dt>
      <dd>
        {i.types.join(', ')} on {i.measures.join(' and ')}
      </dd>
      <dt>Days</dt>
      <dd>
        {i.startDate} – {i.endDate} · {i.size} record{i.size === 1 ? '' : 's'} · first seen{' '}
        {i.firstSeenAt.slice(0, 10)}
      </dd>
    </dl>
  );
}
