/** Home: the charts of a filter's top-ranked series, side by side, so that a glance shows what changed. */
import type * as Api from '../lib/api-types.gen';
import { SeriesChart } from '../components/series-chart';
import { Loading } from '../components/ui';
import { api, qs } from '../lib/api';
import { addDays, categoriesText, fmt } from '../lib/format';
import type { Anomaly } from '../lib/types';
import { useLoad } from '../lib/use-load';

/** Days of context before the anomalous window and after it. */
const BEFORE = 35;
const AFTER = 7;

/** The first anomalies of distinct series, in the filter's order. */
export function topSeries(anomalies: Anomaly[], max: number): Anomaly[] {
  const seen = new Set<string>();
  const out: Anomaly[] = [];
  for (const a of anomalies) {
    const k = `${a.dataViewId}:${a.seriesId}`;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(a);
    if (out.length === max) break;
  }
  return out;
}

function pct(v: number | null): string {
  if (v === null) return '';
  return `${v > 0 ? '+' : ''}${v.toFixed(Math.abs(v) < 10 ? 1 : 0)} %`;
}

function TopChart({ anomaly: a }: { anomaly: Anomaly }) {
  const series = useLoad(
    () =>
      api<Api.SeriesChart>(
        'GET',
        `/dataviews/${a.dataViewId}/series/${a.seriesId}${qs({
          dateFrom: addDays(a.startDate, -BEFORE),
          dateTo: addDays(a.endDate, AFTER),
          type: a.type,
        })}`,
      ),
    [a.dataViewId, a.seriesId, a.type, a.startDate, a.endDate],
  );
  const where = categoriesText(a.categories);
  return (
    <div className="top-chart">
      <h4>
        {where} <span className="muted">· {a.type}</span>
      </h4>
      <p className="muted">
        {a.startDate === a.endDate ? a.startDate : `${a.startDate} – ${a.endDate}`}: actual{' '}
        {fmt(a.actualValue)}, expected {fmt(a.predictedValue)} {pct(a.changePct)}
      </p>
      {series.loading && !series.data && <Loading what="Loading the series" />}
      {series.error ? <p className="muted">The series could not be loaded.</p> : null}
      {series.data && (
        <SeriesChart
          points={series.data.points}
          windowFrom={a.startDate}
          windowTo={a.endDate}
          comments={a.comments ?? []}
          label={`${a.type} anomaly of ${where}, ${a.startDate} to ${a.endDate}: actual ${fmt(a.actualValue)}, expected ${fmt(a.predictedValue)}`}
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
        <TopChart key={`${a.dataViewId}:${a.seriesId}:${a.id}`} anomaly={a} />
      ))}
    </section>
  );
}
