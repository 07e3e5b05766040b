/** One incident: its root causes, broad series, chart, what drove the change, and its member records. */
import { AnomalyDetail } from '../components/anomaly-detail';
import { combinationText } from '../components/contributions';
import { IncidentFacts } from '../components/incident';
import { AnomalyTable } from '../components/results';
import { Loading, Problem } from '../components/ui';
import { api } from '../lib/api';
import type { Anomaly } from '../lib/types';
import { useLoad } from '../lib/use-load';
import { useEffect } from 'react';

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
          <h2>Records of this incident</h2>
          <AnomalyTable anomalies={a.members ?? []} caption={`Records of incident ${shown}`} />
        </section>
      )}
    </div>
  );
}
