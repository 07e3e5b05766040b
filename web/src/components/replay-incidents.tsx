/**
 * The incidents a replayed change adds, removes, changes, splits and merges (the records of both sides
 * grouped as a cycle groups them; lib/replay/incidents.ts), beside "What would change".
 */
import type * as Api from '../lib/api-types.gen';
import { categoriesText } from '../lib/format';
import { countsText, rowsOf, TONE } from '../lib/replay-incidents';
import { Badge } from './ui';

type ReplayIncident = Api.ReplayIncident;

type ReplayIncidents = Api.ReplayResult['incidents'];

/** The stored incident a row is (or, for a replayed part of a split or merge, the stored ones it shares records with). */
function StoredIds({ viewId, x }: { viewId: number; x: ReplayIncident }) {
  const link = (id: number) => (
    <a key={id} href={`/incidents/${viewId}/${id}`}>
      #{id}
    </a>
  );
  if (x.storedIds)
    return (
      <>
        {x.storedId === null ? <span className="muted">new</span> : link(x.storedId)}
        <span className="muted"> shares records with </span>
        {x.storedIds.length === 0 ? '—' : x.storedIds.flatMap((id, i) => (i ? [' ', link(id)] : [link(id)]))}
      </>
    );
  return x.storedId === null ? <span className="muted">new</span> : link(x.storedId);
}

/** The incidents the change adds, removes, changes, splits and merges. */
export function Incidents({ viewId, diff }: { viewId: number; diff: ReplayIncidents }) {
  const rows = rowsOf(diff);
  const c = diff.counts;
  return (
    <>
      <p className="replay-incident-counts">
        Incidents: <strong>{c.added}</strong> added, <strong>{c.removed}</strong> removed,{' '}
        <strong>{c.changed}</strong> changed{countsText(c)}, {c.unchanged} unchanged ({c.before} now,{' '}
        {c.after} after)
      </p>
      {rows.length > 0 && (
        <div className="table-wrap">
          <table className="list replay-incidents">
            <thead>
              <tr>
                <th>Change</th>
                <th>Incident</th>
                <th>Broadest series</th>
                <th>Types</th>
                <th>Days</th>
                <th>Records</th>
              </tr>
            </thead>
            <tbody>
              {rows.map(({ change, side, incident: x, joined, left }) => (
                <tr
                  key={`${change}-${side ?? ''}-${x.head.seriesId}-${x.head.measure}-${x.head.type}-${x.head.startDate}`}
                >
                  <td>
                    <Badge tone={TONE[change]}>{change}</Badge>
                    {side && <span className="muted"> {side === 'was' ? 'was' : 'now'}</span>}
                  </td>
                  <td>
                    <StoredIds viewId={viewId} x={x} />
                  </td>
                  <td className="wrap">
                    {categoriesText(x.head.categories)}
                    {x.measures.length > 1 || x.measures[0] !== 'value' ? ` (${x.measures.join(', ')})` : ''}
                  </td>
                  <td>{x.types.join(', ')}</td>
                  <td>
                    {x.startDate}
                    {x.endDate === x.startDate ? '' : ` – ${x.endDate}`}
                  </td>
                  <td>
                    {x.size}
                    {change === 'changed' ? ` (${joined} joined, ${left} left)` : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
