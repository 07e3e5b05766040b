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

/** Share of the broad series' change the root causes explain together. */
export const explainedPct = (i: AnomalyIncident) => i.rootCauses.reduce((s, c) => s + c.explainsPct, 0);

/**
 * What the root causes explain of the broad series. Over 100 % (the rest of the broad series moved the other
 * way) reads as "all of", with the figure on hover.
 */
function ExplainsText({ incident: i }: { incident: AnomalyIncident }) {
  const share = explainedPct(i);
  const broad = combinationText(i.broad.categories);
  if (share <= 100) return <>{`explains ${fmt(share)} % of ${broad}`}</>;
  return (
    <span title={`${fmt(share)} % of the change: the rest of ${broad} moved the other way`}>
      {`explains all of ${broad}`}
    </span>
  );
}

/** True when the one root cause is the broad series itself (nothing broader moved): nothing to explain. */
const sameAsBroad = (i: AnomalyIncident) =>
  i.rootCauses.length === 1 &&
  combinationText(i.rootCauses[0].categories) === combinationText(i.broad.categories);

/** The cell of an incident row: its root cause, what it explains of which series, and the link. */
export function RootCauseCell({ a }: { a: Anomaly }) {
  const i = a.incident;
  if (!i) return <>{combinationText(a.categories)}</>;
  const broad = i.rootCauses.length === 1 && i.rootCauses[0].broad;
  return (
    <span className="root-cause">
      <span className="cause">{i.rootCauses.map((c) => combinationText(c.categories)).join(' + ')}</span>
      <span className="muted">
        {broad ? (
          'the whole series moved · '
        ) : sameAsBroad(i) ? null : (
          <>
            <ExplainsText incident={i} />
            {' · '}
          </>
        )}
        <Link to={incidentHref(a.dataViewId, i.id)}>incident {i.id}</Link>
        {i.size > 1 ? ` · ${i.size} records` : ''}
      </span>
    </span>
  );
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
              {c.broad ? ' (no smaller set explains it: the series as a whole)' : ''}: change{' '}
              {c.change > 0 ? '+' : ''}
              {fmt(c.change)} ({pct(c.changePct)}), {pct(c.explainsPct)} of the change
            </li>
          ))}
        </ul>
      </dd>
      <dt>Broad series</dt>
      <dd>
        {combinationText(i.broad.categories)}: actual {fmt(i.broad.actual)}, expected {fmt(i.broad.expected)},
        change {i.broad.change > 0 ? '+' : ''}
        {fmt(i.broad.change)} ({pct(i.broad.changePct)})
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
