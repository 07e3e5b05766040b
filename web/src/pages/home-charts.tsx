/** Home: the charts of a filter's top-ranked series, side by side, so that a glance shows what changed. */
import type * as Api from '../lib/api-types.gen';
import { chartSeriesOf, explainsText, signedPct } from '../components/incident';
import { SeriesChart } from '../components/series-chart';
import { Loading } from '../components/ui';
import { api, qs } from '../lib/api';
import { addDays, categoriesText, fmt } from '../lib/format';
import type { Anomaly } from '../lib/types';
import { useLoad } from '../lib/use-load';

/** Days of context before the anomalous window and after it. */
const BEFORE = 35;
const AFTER = 7;

/** The first anomalies of distinct series (an incident row's: its root cause's), in the filter's order. */
export function topSeries(anomalies: Anomaly[], max: number): Anomaly[] {
  const seen = new Set<string>();
  const out: Anomaly[] = [];
  for (const a of anomalies) {
    const k = `${a.dataViewId}:${chartSeriesOf(a)[0].seriesId}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(a);
    if (out.length === max) break;
  }
  return out;
}

function TopChart({ anomaly: a }: { anomaly: Anomaly }) {
  // An incident row's chart is its root cause's series (the row's figures are the cause's).
  const chart = chartSeriesOf(a)[0];
  const cause = a.incident?.rootCauses[0];
  const series = useLoad(
    () =>
      api<Api.SeriesChart>(
        'GET',
        `/dataviews/${a.dataViewId}/series/${chart.seriesId}${qs({
          dateFrom: addDays(a.startDate, -BEFORE),
          dateTo: addDays(a.endDate, AFTER),
          type: a.type,
        })}`,
      ),
    [a.dataViewId, chart.seriesId, a.type, a.startDate, a.endDate],
  );
  const where = categoriesText(a.categories);
  return (
    <div className="top-chart">
      <h4>
        {where} <span className="muted">· {a.type}</span>
      </h4>
      <p className="muted">
        {a.startDate === a.endDate ? a.startDate : `${a.startDate} – ${a.endDate}`}: actual{' '}
        {fmt(cause ? cause.actual : a.actualValue)}, expected {fmt(cause ? cause.expected : a.predictedValue)}{' '}
        {signedPct(a.changePct)}
        {cause && a.incident && !cause.broad ? ` — ${explainsText(cause, a.incident)}` : ''}
      </p>
      <p className="muted chart-label">Chart of the {chart.label}</p>
      {series.loading && !series.data && <Loading what="Loading the series" />}
      {series.error ? <p className="muted">The series could not be loaded.</p> : null}
      {series.data && (
        <SeriesChart
          points={series.data.points}
          windowFrom={a.startDate}
          windowTo={a.endDate}
          comments={a.comments ?? []}
          label={`${a.type} anomaly, ${chart.label}, ${a.startDate} to ${a.endDate}`}
        />
      )}
    </div>
  );
}

/** Up to `max` charts of the top series of a filter's results. */
export function TopCharts({ anomalies, max = 3 }: { anomalies: Anomaly[]; max?: number }) {
  const top = topSeries(anomalies, max);
  if (top.length === 0) return null;
  return (
    <section className="top-charts" aria-label="Charts of the top anomalies">
      {top.map((a) => (
        <TopChart key={`${a.dataViewId}:${chartSeriesOf(a)[0].seriesId}:${a.id}`} anomaly={a} />
      ))}
    </section>
  );
}
