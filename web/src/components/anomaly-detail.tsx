/** One anomaly opened: its series chart with the window and expected values, matched comments, and "Add comment". */
import { useState } from 'react';
import { ApiError, api, isMissingEndpoint, qs } from '../lib/api';
import type * as Api from '../lib/api-types.gen';
import { addDays, categoriesText, fmt } from '../lib/format';
import { useLoad } from '../lib/use-load';
import type { Anomaly, Comment } from '../lib/types';
import { CommentForm } from './comment-form';
import { ContributionsPanel } from './contributions';
import { FeedbackForm } from './feedback-form';
import { chartSeriesOf, IncidentFacts, incidentHref, seriesName, signedPct } from './incident';
import { Link } from '../lib/router';
import { type SeriesPoint, SeriesChart } from './series-chart';
import { Loading } from './ui';

/** Days of context drawn before and after the anomalous window. */
const BEFORE = 42;
const AFTER = 14;

/** GET /dataviews/{id}/series/{seriesId} (schemas/responses/detection.schema.json). */
type SeriesAnswer = Api.SeriesChart;

/**
 * Window averages when the series cannot be read: both values are sums over the window
 * (lib/detection/assemble.ts), so a day's share is value / duration.
 */
function windowOnly(a: Anomaly): SeriesPoint[] {
  const out: SeriesPoint[] = [];
  const d = Math.max(1, a.duration);
  for (let i = 0; i < d; i++) {
    out.push({
      date: addDays(a.startDate, i),
      value: a.actualValue === null ? null : a.actualValue / d,
      expected: a.predictedValue === null ? null : a.predictedValue / d,
    });
  }
  return out;
}

async function loadSeries(
  a: Anomaly,
  seriesId: number,
): Promise<{ points: SeriesPoint[]; partial: boolean }> {
  const query = qs({
    dateFrom: addDays(a.startDate, -BEFORE),
    dateTo: addDays(a.endDate, AFTER),
    type: a.type,
    ...(a.measure === 'count' || a.measure === 'ratio' ? { measure: a.measure } : {}),
  });
  try {
    const r = await api<SeriesAnswer>('GET', `/dataviews/${a.dataViewId}/series/${seriesId}${query}`);
    return { points: r.points, partial: false };
  } catch (e) {
    // A type the view no longer has (its detector removed since) is a 400 naming `type` for a data user.
    const typeGone = e instanceof ApiError && e.status === 400 && e.errors.some((f) => f.path === 'type');
    if (
      (isMissingEndpoint(e) || (e as { status?: number }).status === 404 || typeGone) &&
      seriesId === chartSeriesOf(a)[0].seriesId
    )
      return { points: windowOnly(a), partial: true };
    throw e;
  }
}

/**
 * An incident row's figures in words: each root cause's own actual and expected totals over the window
 * (what the contributions panel shows for it), then the broad series' as context.
 */
function IncidentFigures({ anomaly: a }: { anomaly: Anomaly }) {
  const i = a.incident;
  if (!i) return null;
  const days = `${a.duration} day${a.duration === 1 ? '' : 's'} (${a.startDate} – ${a.endDate})`;
  return (
    <p className="incident-figures">
      {i.rootCauses.map((c) => (
        <span key={seriesName(c.categories)}>
          <strong>{seriesName(c.categories)}</strong>: actual <strong>{fmt(c.actual)}</strong>, expected{' '}
          <strong>{fmt(c.expected)}</strong> ({signedPct(c.changePct)}) over {days}.{' '}
        </span>
      ))}
      <span className="muted">
        Broad series {seriesName(i.broad.categories)}: actual {fmt(i.broad.actual)}, expected{' '}
        {fmt(i.broad.expected)} ({signedPct(i.broad.changePct)}), on the {a.measure ?? 'value'} measure.
      </span>
    </p>
  );
}

export function AnomalyDetail({
  anomaly,
  onCommented,
  incidentFacts = true,
}: {
  anomaly: Anomaly;
  onCommented?: (c: Comment) => void;
  /** Off on the incident's own page, which shows them above (and its members by series below). */
  incidentFacts?: boolean;
}) {
  // An incident row's chart is its root cause's series, the broad series (and other causes) on demand.
  const choices = chartSeriesOf(anomaly);
  const [shown, setShown] = useState(0);
  const chart = choices[Math.min(shown, choices.length - 1)];
  const series = useLoad(
    () => loadSeries(anomaly, chart.seriesId),
    [anomaly.dataViewId, chart.seriesId, anomaly.id],
  );
  const [comments, setComments] = useState<Comment[]>(anomaly.comments ?? []);
  const [adding, setAdding] = useState(false);
  const types = anomaly.types?.length ? anomaly.types.join(' + ') : anomaly.type;
  const measure = anomaly.measure ?? 'value';
  const label = `${types} anomaly of ${anomaly.dataView} (${measure}), ${chart.label}, ${anomaly.startDate} to ${anomaly.endDate}`;
  return (
    <div className="anomaly-detail">
      {series.loading && !series.data && <Loading what="Loading the series" />}
      {series.error ? (
        <p className="problem">The series could not be loaded: {(series.error as Error).message}</p>
      ) : null}
      <div className="chart-choice">
        <span className="chart-label">Chart of the {chart.label}</span>
        {choices.length > 1 &&
          choices.map((c, k) =>
            k === shown ? null : (
              <button key={c.seriesId} type="button" className="link" onClick={() => setShown(k)}>
                Show the {c.label}
              </button>
            ),
          )}
      </div>
      {series.data && (
        <>
          <SeriesChart
            points={series.data.points}
            windowFrom={anomaly.startDate}
            windowTo={anomaly.endDate}
            comments={comments}
            label={label}
          />
          {series.data.partial && (
            <p className="muted">Daily values are not available here; the chart shows window averages.</p>
          )}
        </>
      )}
      {anomaly.incident ? (
        <IncidentFigures anomaly={anomaly} />
      ) : (
        <p>
          Expected <strong>{fmt(anomaly.predictedValue)}</strong>, actual{' '}
          <strong>{fmt(anomaly.actualValue)}</strong> over {anomaly.duration} day
          {anomaly.duration === 1 ? '' : 's'} ({anomaly.startDate} – {anomaly.endDate}), on the {measure}{' '}
          measure.
          {anomaly.types && anomaly.types.length > 1 && (
            <>
              {' '}
              Flagged by {anomaly.types.join(', ')}; the figures are those of {anomaly.type}.
            </>
          )}
        </p>
      )}
      {incidentFacts && anomaly.members && anomaly.members.length > 1 && (
        <ul className="event-members">
          {anomaly.members.map((m) => (
            <li key={m.id}>
              <strong>{seriesName(m.categories)}</strong> ({m.measure ?? 'value'}) · {m.type}: {m.startDate} –{' '}
              {m.endDate}, actual {fmt(m.actualValue)}, expected {fmt(m.predictedValue)}, SIN {fmt(m.sin)}
            </li>
          ))}
        </ul>
      )}
      {anomaly.incident && incidentFacts && (
        <>
          <h4>
            <Link to={incidentHref(anomaly.dataViewId, anomaly.incident.id)}>
              Incident {anomaly.incident.id}
            </Link>
          </h4>
          <IncidentFacts incident={anomaly.incident} />
        </>
      )}
      {/* An incident row carries its head's window; its root cause was found under its broad series. */}
      <ContributionsPanel
        query={{
          dataViewId: anomaly.dataViewId,
          categories: anomaly.incident ? anomaly.incident.broad.categories : anomaly.categories,
          from: anomaly.startDate,
          to: anomaly.endDate,
          measure: anomaly.measure === 'count' || anomaly.measure === 'ratio' ? anomaly.measure : 'value',
        }}
      />
      <FeedbackForm record={anomaly} />
      <h4>Comments</h4>
      {comments.length === 0 && <p className="muted">No comments match this anomaly yet.</p>}
      <ul className="comments">
        {comments.map((c) => (
          <li key={c.id}>
            <span className="muted">
              {c.dateFrom} – {c.dateTo} · {c.email} · {categoriesText(c.categories)}
            </span>
            <div>{c.text}</div>
          </li>
        ))}
      </ul>
      {adding ? (
        <CommentForm
          initial={{
            dataViewId: anomaly.dataViewId,
            dateFrom: anomaly.startDate,
            dateTo: anomaly.endDate,
            categories: Object.fromEntries(Object.entries(anomaly.categories).filter(([, v]) => v !== null)),
          }}
          fallbackCategories={anomaly.categories}
          onSaved={(c) => {
            setComments((list) => [...list, c]);
            setAdding(false);
            onCommented?.(c);
          }}
          onCancel={() => setAdding(false)}
        />
      ) : (
        <button type="button" onClick={() => setAdding(true)}>
          Add comment
        </button>
      )}
    </div>
  );
}
