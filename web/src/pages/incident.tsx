/**
 * One incident: its root causes, broad series, chart (labelled with the series it shows: the root cause's,
 * the broad series on demand), what drove the change, and its member records grouped by the series they
 * are on, each group named.
 */
import { AnomalyDetail } from '../components/anomaly-detail';
import { combinationText } from '../components/contributions';
import { IncidentFacts, seriesName } from '../components/incident';
import { AnomalyTable, ColumnChooser, readChosen } from '../components/results';
import { Loading, Problem } from '../components/ui';
import { api } from '../lib/api';
import type { Anomaly } from '../lib/types';
import { useLoad } from '../lib/use-load';
import { useEffect, useState } from 'react';

/** The members by the series they are on, in the order of their strongest record (members come strongest first). */
export function membersBySeries(members: readonly Anomaly[]): Array<{ name: string; records: Anomaly[] }> {
  const groups = new Map<number, { name: string; records: Anomaly[] }>();
  for (const m of members) {
    const g = groups.get(m.seriesId);
    if (g) g.records.push(m);
    else groups.set(m.seriesId, { name: seriesName(m.categories), records: [m] });
  }
  return [...groups.values()];
}

function MembersBySeries({ a, incidentId }: { a: Anomaly; incidentId: number }) {
  const groups = membersBySeries(a.members ?? []);
  const [chosen, setChosen] = useState<Set<string>>(readChosen);
  return (
    <>
      <h2>
        Records of this incident: {a.members?.length ?? 0} on {groups.length} series
      </h2>
      <ColumnChooser chosen={chosen} onChange={setChosen} />
      {groups.map((g) => (
        <section key={g.name} className="member-series" aria-label={`Records on ${g.name}`}>
          <h3>
            {g.name}{' '}
            <span className="muted">
              · {g.records.length} record{g.records.length === 1 ? '' : 's'} ·{' '}
              {[...new Set(g.records.map((r) => `${r.type} (${r.measure ?? 'value'})`))].join(', ')}
            </span>
          </h3>
          <AnomalyTable
            anomalies={g.records}
            caption={`Records of incident ${incidentId} on ${g.name}`}
            chosenColumns={chosen}
          />
        </section>
      ))}
    </>
  );
}

export function IncidentPage({ dataViewId, incidentId }: { dataViewId: number; incidentId: number }) {
  const row = useLoad(
    () => api<Anomaly>('GET', `/dataviews/${dataViewId}/incidents/${incidentId}`),
    [dataViewId, incidentId],
  );
  const a = row.data;
  // An id a regrouping dissolved answers the incident that now holds its records: the page follows it.
  const shown = a?.movedFrom ? (a.incident?.id ?? incidentId) : incidentId;
  useEffect(() => {
    if (a?.movedFrom && shown !== incidentId)
      window.history.replaceState(null, '', `/incidents/${dataViewId}/${shown}`);
  }, [a, shown, incidentId, dataViewId]);
  return (
    <div>
      {a?.movedFrom && (
        <p className="muted" role="status">
          Incident {incidentId} was regrouped: its records are now in incident{' '}
          {a.movedFrom.movedTo.join(', ')}.
        </p>
      )}
      <h1>
        Incident {shown}
        {a?.incident
          ? `: ${a.incident.rootCauses.map((c) => combinationText(c.categories)).join(' + ')}`
          : ''}
      </h1>
      {row.loading && !a && <Loading what="Reading the incident" />}
      <Problem error={row.error} />
      {a?.incident && (
        <section className="card" aria-label="The incident">
          <p className="muted">
            {a.dataView} · {a.result === 'Positive' ? 'a rise' : 'a fall'}
          </p>
          <IncidentFacts incident={a.incident} />
          <AnomalyDetail anomaly={a} incidentFacts={false} />
          <MembersBySeries a={a} incidentId={shown} />
        </section>
      )}
    </div>
  );
}
