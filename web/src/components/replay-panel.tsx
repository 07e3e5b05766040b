/**
 * "What would change": the definition in the editor, not saved, replayed over the view's loaded history
 * (POST /dataviews/{id}/replay, a Replay job that publishes nothing), then the difference with the anomalies
 * stored now: counts, counts by type and measure, the incidents added, removed, changed, split and merged
 * (replay-incidents.tsx), the records added, removed and changed, and
 * a chart of a record's series on demand.
 */
import { Fragment, useState } from 'react';
import { api, qs } from '../lib/api';
import { addDays, categoriesText, fmt } from '../lib/format';
import { SeriesChart, type SeriesPoint } from './series-chart';
import type * as Api from '../lib/api-types.gen';
import { Incidents } from './replay-incidents';
import { Badge, Loading, Problem } from './ui';

/** The replay's answers (schemas/responses/detection.schema.json). */
type ReplayRecord = Api.ReplayRecord;

type ReplayAnswer = Api.Replay;

type Row = { change: 'added' | 'removed' | 'changed'; record: ReplayRecord; before?: ReplayRecord };

const TONE = { added: 'green', removed: 'red', changed: 'amber' } as const;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (v: number | null) => (v === null ? '—' : `${fmt(Math.round(v * 10) / 10)} %`);

/**
 * The series around a record with the expectation of the replayed definition's detector of its type,
 * computed with the replayed definition throughout (its params, special dates and analysis window:
 * GET /dataviews/{id}/replay/{jobId}/series/{seriesId}); the saved definition's when the replayed one has
 * no detector of the type.
 */
function RowChart({ viewId, jobId, r }: { viewId: number; jobId: number; r: ReplayRecord }) {
  const [data, setData] = useState<Api.ReplaySeriesChart | null>(null);
  const [error, setError] = useState<unknown>(null);
  if (data === null && error === null) {
    const q = {
      type: r.type,
      detectorIndex: String(r.detectorIndex),
      dateFrom: addDays(r.startDate, -28),
      dateTo: addDays(r.endDate, 7),
      ...(r.measure === 'value' ? {} : { measure: r.measure }),
    };
    api<Api.ReplaySeriesChart>(
      'GET',
      `/dataviews/${viewId}/replay/${jobId}/series/${r.seriesId}${qs(q)}`,
    ).then(setData, setError);
  }
  if (error) return <Problem error={error} />;
  if (!data) return <Loading what="Loading the series" />;
  return (
    <>
      <p className="muted replay-chart-note">
        {data.definition === 'replayed'
          ? `Expected: the edited ${r.type} detector's, with the edited definition's parameters, special dates and analysis window.`
          : `Expected: the saved definition's ${r.type} detector's (the edited definition has no ${r.type} detector).`}
      </p>
      <SeriesChart
        points={data.points as SeriesPoint[]}
        windowFrom={r.startDate}
        windowTo={r.endDate}
        label={`${categoriesText(r.categories)} (${r.measure}), ${r.type} ${r.startDate} to ${r.endDate}`}
      />
    </>
  );
}

function Rows({ viewId, jobId, rows }: { viewId: number; jobId: number; rows: Row[] }) {
  const [open, setOpen] = useState<number | null>(null);
  if (rows.length === 0) return <p className="muted">No anomaly is added, removed or changed.</p>;
  return (
    <div className="table-wrap">
      <table className="list replay-rows">
        <thead>
          <tr>
            <th>Change</th>
            <th>Series</th>
            <th>Type</th>
            <th>Days</th>
            <th>Actual</th>
            <th>Expected</th>
            <th>Change %</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => {
            const r = row.record;
            return (
              <Fragment key={`${row.change}-${r.seriesId}-${r.measure}-${r.type}-${r.startDate}`}>
                <tr>
                  <td>
                    <Badge tone={TONE[row.change]}>{row.change}</Badge>
                  </td>
                  <td className="wrap">
                    {categoriesText(r.categories)}
                    {r.measure === 'value' ? '' : ` (${r.measure})`}
                  </td>
                  <td>{r.type}</td>
                  <td>
                    {r.startDate}
                    {r.endDate === r.startDate ? '' : ` – ${r.endDate}`}
                    {row.before && row.before.endDate !== r.endDate ? ` (was to ${row.before.endDate})` : ''}
                  </td>
                  <td>{fmt(r.actualValue)}</td>
                  <td>
                    {fmt(r.predictedValue)}
                    {row.before && row.before.predictedValue !== r.predictedValue
                      ? ` (was ${fmt(row.before.predictedValue)})`
                      : ''}
                  </td>
                  <td>{pct(r.changePct)}</td>
                  <td>
                    <button type="button" onClick={() => setOpen(open === i ? null : i)}>
                      {open === i ? 'Hide chart' : 'Chart'}
                    </button>
                  </td>
                </tr>
                {open === i && (
                  <tr className="detail-row">
                    <td colSpan={8}>
                      <RowChart viewId={viewId} jobId={jobId} r={r} />
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function ReplayPanel({ viewId, text }: { viewId: number; text: string }) {
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<ReplayAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);

  const run = async () => {
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      const job = await api<Api.Job>('POST', `/dataviews/${viewId}/replay`, text, { yaml: true });
      for (;;) {
        const a = await api<ReplayAnswer>('GET', `/dataviews/${viewId}/replay/${job.id}`);
        setAnswer(a);
        if (a.job.status === 'finished' || a.job.status === 'failed') break;
        await sleep(1000);
      }
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const r = answer?.result;
  const rows: Row[] = r
    ? [
        ...r.added.map((x) => ({ change: 'added' as const, record: x })),
        ...r.removed.map((x) => ({ change: 'removed' as const, record: x })),
        ...r.changed.map((x) => ({ change: 'changed' as const, record: x.after, before: x.before })),
      ]
    : [];
  return (
    <section className="card replay-panel" aria-labelledby="replay-title" aria-busy={busy}>
      <h2 id="replay-title">What would change</h2>
      <p className="muted">
        Runs the definition in the editor, unsaved, over the loaded history and compares its anomalies with
        those stored now. Nothing is saved or published.
      </p>
      <button type="button" onClick={run} disabled={busy}>
        {busy ? 'Replaying…' : 'What would change'}
      </button>
      <Problem error={error} />
      {answer && !r && answer.job.status !== 'failed' && (
        <Loading what={`Replay job ${answer.job.id} ${answer.job.status}`} />
      )}
      {answer?.job.status === 'failed' && <p className="problem">The replay failed: {answer.job.error}</p>}
      {r && (
        <div aria-live="polite">
          <p className="replay-counts">
            <strong>{r.counts.added}</strong> added, <strong>{r.counts.removed}</strong> removed,{' '}
            <strong>{r.counts.changed}</strong> changed, {r.counts.unchanged} unchanged ({r.counts.before}{' '}
            anomalies now, {r.counts.after} after; {fmt(r.run.series)} series × {r.run.days} days in{' '}
            {fmt(r.run.ms)} ms)
          </p>
          {/* A replay stored before incidents were regrouped has no incident counts. */}
          {r.incidents?.counts && <Incidents viewId={viewId} diff={r.incidents} />}
          {r.byType.length > 0 && (
            <table className="list replay-types">
              <thead>
                <tr>
                  <th>Type</th>
                  <th>Measure</th>
                  <th>Now</th>
                  <th>After</th>
                  <th>Added</th>
                  <th>Removed</th>
                  <th>Changed</th>
                </tr>
              </thead>
              <tbody>
                {r.byType.map((t) => (
                  <tr key={`${t.type}-${t.measure}`}>
                    <td>{t.type}</td>
                    <td>{t.measure}</td>
                    <td>{t.before}</td>
                    <td>{t.after}</td>
                    <td>{t.added}</td>
                    <td>{t.removed}</td>
                    <td>{t.changed}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <Rows viewId={viewId} jobId={answer.job.id} rows={rows} />
          {r.truncated && (
            <p className="muted">At most {r.rowLimit} rows of each kind are shown; the counts are whole.</p>
          )}
        </div>
      )}
    </section>
  );
}
