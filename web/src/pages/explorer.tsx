/**
 * Series explorer: pick a data view, walk its categories (tree and search), and see one series with the
 * detector's expectations and band, anomaly windows, special dates and comments, and its anomalies in a table.
 * The address holds the whole state: /explorer?view=&c.<category>=&type=&from=&to=
 */
import { useEffect, useMemo, useState } from 'react';
import '../components/explorer/explorer.css';
import {
  categoriesQuery,
  type ExplorerState,
  explorerHref,
  initialView,
  lastUsedView,
  readState,
  rememberView,
  type SeriesAnomaly,
  type SeriesAnswer,
  seriesTitle,
  type TreeAnswer,
  otherMeasure,
} from '../components/explorer/model';
import { ExplorerDrivers } from '../components/explorer/drivers';
import { SeriesTree } from '../components/explorer/series-tree';
import { UPlotChart } from '../components/explorer/uplot-chart';
import { Badge, Loading, Problem } from '../components/ui';
import { api } from '../lib/api';
import { addDays, fmt, pct } from '../lib/format';
import { navigate, useLocation } from '../lib/router';
import type { DataViewLite } from '../lib/types';
import { useLoad } from '../lib/use-load';

export function ExplorerPage() {
  const { query } = useLocation();
  const state = readState(query);
  const views = useLoad(() => api<DataViewLite[]>('GET', '/dataviews/lite'), []);
  const go = (next: Partial<ExplorerState>, replace = false) =>
    navigate(explorerHref({ ...state, ...next }), { replace });
  // No view in the address: open the last one used, or the only one, at once.
  const opening = state.view === null && views.data ? initialView(views.data, lastUsedView()) : null;
  useEffect(() => {
    if (opening !== null) navigate(explorerHref({ view: opening, categories: {} }), { replace: true });
  }, [opening]);
  useEffect(() => {
    if (state.view !== null) rememberView(state.view);
  }, [state.view]);
  return (
    <div className="explorer">
      <div className="page-header">
        <h1>Series explorer</h1>
      </div>
      <Problem error={views.error} />
      <div className="explorer-pick">
        <label htmlFor="explorer-view">Data view</label>
        <select
          id="explorer-view"
          value={state.view ?? ''}
          onChange={(e) => navigate(explorerHref({ view: Number(e.target.value) || null, categories: {} }))}
        >
          <option value="">Choose a data view…</option>
          {views.data?.map((v) => (
            <option key={v.id} value={v.id}>
              {v.domain} / {v.name}
            </option>
          ))}
        </select>
      </div>
      {views.data && views.data.length === 0 && (
        <p className="muted">No data view is assigned to you yet: ask an administrator.</p>
      )}
      {state.view === null ? (
        opening !== null || !views.data ? (
          <Loading what="Opening the data view" />
        ) : (
          <p className="muted">Choose a data view to walk its series, or open one from an anomaly on Home.</p>
        )
      ) : (
        <ViewExplorer key={state.view} viewId={state.view} state={state} go={go} />
      )}
    </div>
  );
}

function ViewExplorer({
  viewId,
  state,
  go,
}: {
  viewId: number;
  state: ExplorerState;
  go: (next: Partial<ExplorerState>, replace?: boolean) => void;
}) {
  const root = useLoad(() => api<TreeAnswer>('GET', `/dataviews/${viewId}/explorer/tree`), [viewId]);
  if (root.error) return <Problem error={root.error} />;
  if (!root.data) return <Loading what="Reading the data view" />;
  return (
    <div className="explorer-body">
      <SeriesTree
        viewId={viewId}
        categories={root.data.categories}
        rootAnomalies={root.data.node.anomalies}
        selected={state.categories}
        onSelect={(categories) =>
          go({ categories, from: undefined, to: undefined, windowFrom: undefined, windowTo: undefined })
        }
      />
      <SeriesPanel view={root.data} state={state} go={go} />
    </div>
  );
}

function SeriesPanel({
  view,
  state,
  go,
}: {
  view: TreeAnswer;
  state: ExplorerState;
  go: (next: Partial<ExplorerState>, replace?: boolean) => void;
}) {
  const key = categoriesQuery(state.categories);
  const series = useLoad(async () => {
    const node = await api<TreeAnswer>(
      'GET',
      `/dataviews/${view.dataViewId}/explorer/tree${key ? `?${key}` : ''}`,
    );
    if (node.node.seriesId === null) return null;
    const q = new URLSearchParams();
    if (state.type) q.set('type', state.type);
    if (state.measure) q.set('measure', state.measure);
    const text = q.toString();
    return api<SeriesAnswer>(
      'GET',
      `/dataviews/${view.dataViewId}/explorer/series/${node.node.seriesId}${text ? `?${text}` : ''}`,
    );
  }, [view.dataViewId, key, state.type, state.measure]);
  const [picked, setPicked] = useState<number | null>(null);
  const title = seriesTitle(state.categories, view.categories);
  const data = series.data;
  // Opened from an anomaly: its own window is picked (the shaded window and what drove the change).
  const linked = state.windowFrom && state.windowTo ? { from: state.windowFrom, to: state.windowTo } : null;
  const linkedId =
    data && linked
      ? (data.anomalies.find((a) => a.startDate === linked.from && a.endDate === linked.to)?.id ?? null)
      : null;
  const activeId = picked ?? linkedId;
  const windows = useMemo(
    () =>
      (data?.anomalies ?? [])
        .filter((a) => (a.measure ?? 'value') === (data?.measure ?? 'value'))
        .map((a) => ({
          startDate: a.startDate,
          endDate: a.endDate,
          result: a.result,
          active: a.id === activeId,
        })),
    [data, activeId],
  );
  const specialDates = useMemo(() => (data?.specialDates ?? []).map((d) => d.date), [data]);
  const holidays = useMemo(() => (data?.holidays ?? []).map((h) => h.date), [data]);
  const comments = useMemo(
    () => (data?.comments ?? []).map((c) => ({ dateFrom: c.dateFrom, dateTo: c.dateTo, text: c.text })),
    [data],
  );
  const detectorTypes = [...new Set(view.detectors.map((d) => d.type.toLowerCase()))];
  const current = data?.detector?.type ?? state.type ?? detectorTypes[0];
  if (state.type && !detectorTypes.includes(state.type.toLowerCase()))
    detectorTypes.push(state.type.toLowerCase());
  const show = (a: SeriesAnomaly) => {
    setPicked(a.id);
    go(
      {
        from: addDays(a.startDate, -42),
        to: addDays(a.endDate, 14),
        measure: otherMeasure(a.measure),
      },
      a.measure === state.measure || (!a.measure && !state.measure),
    );
  };
  return (
    <section className="series-panel card" aria-labelledby="series-title">
      <header className="series-head">
        <div>
          <h2 id="series-title">{title}</h2>
          <p className="muted">
            {view.dataView}
            {data?.band && ` · band: ${data.band}`}
          </p>
        </div>
        {data && data.measures.length > 1 && (
          <div className="field inline">
            <label htmlFor="explorer-measure">Measure</label>
            <select
              id="explorer-measure"
              value={data.measure}
              onChange={(e) => go({ measure: otherMeasure(e.target.value) })}
            >
              {data.measures.map((m) => (
                <option key={m} value={m}>
                  {m === 'value' ? 'Value' : m === 'count' ? 'Count' : 'Ratio (value ÷ count)'}
                </option>
              ))}
            </select>
          </div>
        )}
        {detectorTypes.length > 0 && (
          <div className="field inline">
            <label htmlFor="explorer-detector">Detector</label>
            <select
              id="explorer-detector"
              value={current?.toLowerCase() ?? ''}
              onChange={(e) => go({ type: e.target.value }, false)}
            >
              {detectorTypes.map((t) => (
                <option key={t} value={t}>
                  {t.toUpperCase()}
                </option>
              ))}
            </select>
          </div>
        )}
      </header>
      {series.loading && !data && <Loading what="Reading the series" />}
      <Problem error={series.error} />
      {data === null && (
        <p className="muted">No series was loaded for {title}: choose another node, or load the data view.</p>
      )}
      {data && (
        <>
          {data.skipped && (
            <p className="warning">
              The {data.detector?.code ?? 'detector'} does not judge this series:{' '}
              {data.skipped.message ?? data.skipped.reason ?? 'skipped'}.
            </p>
          )}
          <UPlotChart
            points={data.points}
            windows={windows}
            specialDates={specialDates}
            holidays={holidays}
            comments={comments}
            from={state.from}
            to={state.to}
            onRange={(from, to) => go({ from, to }, true)}
            label={`Daily values of ${title} with the expected values of ${data.detector?.code ?? 'the detector'}${data.band ? ' and its band' : ''}, ${data.anomalies.length} anomaly windows shaded`}
          />
          <SeriesNotes data={data} />
          <ExplorerDrivers data={data} window={pickedWindow(data, picked) ?? linked} />
          <h3>Anomalies of this series</h3>
          <SeriesAnomalies
            anomalies={data.anomalies}
            picked={activeId}
            onShow={show}
            withMeasure={data.measures.length > 1}
          />
        </>
      )}
    </section>
  );
}

/** The window of the picked anomaly of the series, if one is picked. */
function pickedWindow(data: SeriesAnswer, picked: number | null): { from: string; to: string } | null {
  const a = data.anomalies.find((x) => x.id === picked);
  return a ? { from: a.startDate, to: a.endDate } : null;
}

function SeriesNotes({ data }: { data: SeriesAnswer }) {
  if (data.comments.length === 0 && data.specialDates.length === 0) return null;
  return (
    <div className="series-notes">
      {data.comments.length > 0 && (
        <div>
          <h3>Comments</h3>
          <ul className="comments">
            {data.comments.map((c) => (
              <li key={c.id}>
                <strong>{c.dateFrom === c.dateTo ? c.dateFrom : `${c.dateFrom} – ${c.dateTo}`}</strong>{' '}
                {c.text} <span className="muted">({c.email})</span>
              </li>
            ))}
          </ul>
        </div>
      )}
      {(data.holidays ?? []).length > 0 && (
        <details className="holidays">
          <summary>Holidays ({data.holidays.length}), marked green at the foot of the chart</summary>
          <p className="muted special-list">
            {data.holidays.map((h) => `${h.date} ${h.name} (${h.region})`).join(', ')}
          </p>
        </details>
      )}
      {data.specialDates.length > 0 && (
        // Dotted lines on the chart; the list (every year of the series) stays folded until asked for.
        <details className="special-dates">
          <summary>Special dates ({data.specialDates.length}), drawn as dotted lines on the chart</summary>
          <p className="muted special-list">
            {data.specialDates
              .map((d) => (d.impact === 'both' ? d.date : `${d.date} (${d.impact} only)`))
              .join(', ')}
          </p>
        </details>
      )}
    </div>
  );
}

function SeriesAnomalies({
  anomalies,
  picked,
  onShow,
  withMeasure,
}: {
  anomalies: SeriesAnomaly[];
  picked: number | null;
  onShow: (a: SeriesAnomaly) => void;
  withMeasure: boolean;
}) {
  if (anomalies.length === 0) return <p className="muted">No anomaly was found in this series.</p>;
  return (
    <div className="table-wrap">
      <table className="results">
        <caption className="sr-only">Anomalies of this series, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Start date</th>
            <th scope="col">End date</th>
            <th scope="col">Type</th>
            {withMeasure && <th scope="col">Measure</th>}
            <th scope="col" className="num">
              Duration
            </th>
            <th scope="col" className="num">
              Actual
            </th>
            <th scope="col" className="num">
              Expected
            </th>
            <th scope="col" className="num">
              Change %
            </th>
            <th scope="col">Result</th>
            <th scope="col" className="num">
              SIN
            </th>
          </tr>
        </thead>
        <tbody>
          {anomalies.map((a) => (
            <tr key={a.id} className={a.id === picked ? 'open' : undefined}>
              <td>
                <button
                  type="button"
                  className="link"
                  aria-label={`Show the ${a.type} anomaly of ${a.startDate} on the chart`}
                  onClick={() => onShow(a)}
                >
                  {a.startDate}
                </button>
              </td>
              <td>{a.endDate}</td>
              <td>{a.type}</td>
              {withMeasure && <td>{a.measure ?? 'value'}</td>}
              <td className="num">{a.duration}</td>
              <td className="num">{fmt(a.actualValue)}</td>
              <td className="num">{fmt(a.predictedValue)}</td>
              <td className="num">{pct(a.changePct)}</td>
              <td>
                <Badge tone={a.result === 'Positive' ? 'pos' : 'neg'}>{a.result}</Badge>
              </td>
              <td className="num">{fmt(a.sin)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
