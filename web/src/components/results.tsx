/** Filter results: the anomaly table (each row opens its chart and comments) and the aggregates table. */
import { Fragment, type ReactNode, useState } from 'react';
import { categoriesText, fmt, pct } from '../lib/format';
import { newsTitle, resultTone } from '../lib/news';
import type { Aggregate, Anomaly, FilterRun } from '../lib/types';
import { AnomalyDetail } from './anomaly-detail';
import { FeedbackBadge } from './feedback-form';
import { anomalyExplorerHref } from './explorer/model';
import { Link } from '../lib/router';
import { RootCauseCell } from './incident';
import { Badge } from './ui';

const key = (a: Anomaly) => `${a.dataViewId}:${a.id}`;

/** The type, or for an event every type that flagged it (once per event, the strongest first). */
export const typesText = (a: Pick<Anomaly, 'type' | 'types' | 'incident'>) =>
  a.incident?.types.length ? a.incident.types.join(' + ') : a.types?.length ? a.types.join(' + ') : a.type;

/** The types, the first three and how many more (all of them on hover): an incident's can be a dozen. */
function TypesCell({ a }: { a: Anomaly }) {
  const all = typesText(a).split(' + ');
  if (all.length <= 3) return <>{all.join(' + ')}</>;
  return <span title={all.join(' + ')}>{`${all.slice(0, 3).join(' + ')} + ${all.length - 3} more`}</span>;
}

/** The measure's name: value (the usual case), count, or ratio (value ÷ count per day). */
export const measureText = (m: Anomaly['measure']) => m ?? 'value';

/** An incident row's measures (every one among its records), else the record's. */
const measuresText = (a: Anomaly) =>
  a.incident && a.incident.measures.length > 1 ? a.incident.measures.join(' + ') : measureText(a.measure);

interface Column {
  label: string;
  num?: boolean;
  /** Shown in the compact table of the filter preview. */
  compact?: boolean;
  /** Less used: hidden until chosen under "Columns" (the table fits a 1,280 px page without them). */
  optional?: boolean;
  /** Long text that wraps (the root cause and what it explains) instead of widening the table. */
  wrap?: boolean;
  /** Short text that may wrap onto a second line (an incident's types). */
  narrow?: boolean;
  /** The service's sortBy for this column (paged results, lib/anomalies/pages.ts). */
  sortKey?: string;
  cell: (a: Anomaly) => ReactNode;
}

// The first column (start date, which opens the chart) is drawn separately.
const COLUMNS: Column[] = [
  {
    label: 'Type',
    compact: true,
    narrow: true,
    sortKey: 'type',
    cell: (a) => (
      <>
        <TypesCell a={a} />
        {a.feedback && (
          <>
            {' '}
            <FeedbackBadge feedback={a.feedback} />
          </>
        )}
      </>
    ),
  },
  { label: 'Measure', compact: true, optional: true, sortKey: 'measure', cell: (a) => measuresText(a) },
  { label: 'Data view', optional: true, sortKey: 'dataView', cell: (a) => a.dataView },
  // An incident row's categories are its root cause: shown with what it explains and the incident's link.
  {
    label: 'Categories',
    compact: true,
    wrap: true,
    cell: (a) => (a.incident ? <RootCauseCell a={a} /> : categoriesText(a.categories)),
  },
  { label: 'Duration', num: true, compact: true, sortKey: 'duration', cell: (a) => a.duration },
  { label: 'Actual', num: true, compact: true, sortKey: 'actualValue', cell: (a) => fmt(a.actualValue) },
  {
    label: 'Expected',
    num: true,
    compact: true,
    sortKey: 'predictedValue',
    cell: (a) => fmt(a.predictedValue),
  },
  { label: 'Change', num: true, optional: true, sortKey: 'change', cell: (a) => fmt(a.change) },
  { label: 'Change %', num: true, compact: true, sortKey: 'changePct', cell: (a) => pct(a.changePct) },
  { label: 'Share %', num: true, optional: true, sortKey: 'sharePct', cell: (a) => pct(a.sharePct) },
  {
    label: 'Recurrence',
    num: true,
    optional: true,
    sortKey: 'recurrence',
    cell: (a) => fmt(a.recurrence),
  },
  {
    label: 'Result',
    compact: true,
    cell: (a) => (
      <Badge tone={resultTone(a)} title={newsTitle(a)}>
        {a.result}
      </Badge>
    ),
  },
  { label: 'SIN', num: true, compact: true, sortKey: 'sin', cell: (a) => fmt(a.sin) },
  { label: 'SIM', num: true, optional: true, sortKey: 'sim', cell: (a) => fmt(a.sim) },
  { label: 'Comments', cell: (a) => (a.comments?.length ? `${a.comments.length} 💬` : '') },
];

interface TableProps {
  anomalies: Anomaly[];
  caption: string;
  /** Fewer columns, for narrow panes. */
  compact?: boolean;
  /** Column headers become sort buttons (the service sorts; see explorer/paged-results.tsx). */
  sort?: { by: string; order: 'asc' | 'desc'; onSort: (key: string) => void };
  /** The optional columns chosen above several tables (one ColumnChooser for all); else the table has its own. */
  chosenColumns?: Set<string>;
}

/** A header cell, a sort button when the table sorts by that column. */
function HeaderCell({
  label,
  num,
  sortKey,
  sort,
}: {
  label: string;
  num?: boolean;
  sortKey?: string;
  sort?: TableProps['sort'];
}) {
  const active = sort && sortKey && sort.by === sortKey;
  return (
    <th
      scope="col"
      className={num ? 'num' : undefined}
      aria-sort={active ? (sort.order === 'asc' ? 'ascending' : 'descending') : undefined}
    >
      {sort && sortKey ? (
        <button type="button" className="sort" onClick={() => sort.onSort(sortKey)}>
          {label}
          {active ? (sort.order === 'asc' ? ' ▲' : ' ▼') : ''}
        </button>
      ) : (
        label
      )}
    </th>
  );
}

/** Where the chosen optional columns are remembered in the browser. */
const CHOSEN_KEY = 'results.columns';

export function readChosen(): Set<string> {
  try {
    const v = JSON.parse(window.localStorage.getItem(CHOSEN_KEY) ?? '[]');
    return new Set(Array.isArray(v) ? v.filter((x) => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}

/** The less used columns on demand: a checkbox each, remembered in the browser. */
export function ColumnChooser({
  chosen,
  onChange,
}: {
  chosen: Set<string>;
  onChange: (next: Set<string>) => void;
}) {
  const toggle = (label: string) => {
    const next = new Set(chosen);
    if (next.has(label)) next.delete(label);
    else next.add(label);
    try {
      window.localStorage.setItem(CHOSEN_KEY, JSON.stringify([...next]));
    } catch {
      // A browser that keeps nothing still shows the choice until the page is left.
    }
    onChange(next);
  };
  return (
    <details className="column-chooser">
      <summary>Columns</summary>
      <fieldset>
        <legend className="sr-only">More columns</legend>
        {COLUMNS.filter((c) => c.optional).map((c) => (
          <label key={c.label}>
            <input type="checkbox" checked={chosen.has(c.label)} onChange={() => toggle(c.label)} /> {c.label}
          </label>
        ))}
      </fieldset>
    </details>
  );
}

export function AnomalyTable({ anomalies, caption, compact, sort, chosenColumns }: TableProps) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [own, setChosen] = useState<Set<string>>(readChosen);
  const chosen = chosenColumns ?? own;
  if (anomalies.length === 0)
    return <p className="muted">No anomalies match this filter in its time range.</p>;
  const columns = compact
    ? COLUMNS.filter((c) => c.compact)
    : COLUMNS.filter((c) => !c.optional || chosen.has(c.label));
  const toggle = (k: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (next.has(k)) next.delete(k);
      else next.add(k);
      return next;
    });
  return (
    <div className="table-wrap">
      {!compact && !chosenColumns && <ColumnChooser chosen={chosen} onChange={setChosen} />}
      <table className="results">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            <HeaderCell label="Start date" sortKey="startDate" sort={sort} />
            {columns.map((c) => (
              <HeaderCell key={c.label} label={c.label} num={c.num} sortKey={c.sortKey} sort={sort} />
            ))}
          </tr>
        </thead>
        <tbody>
          {anomalies.map((a) => {
            const k = key(a);
            const isOpen = open.has(k);
            return (
              <Fragment key={k}>
                <tr className={isOpen ? 'open' : undefined}>
                  <td>
                    <button
                      type="button"
                      className="link"
                      aria-expanded={isOpen}
                      aria-label={`${isOpen ? 'Hide' : 'Show'} chart of the ${typesText(a)} anomaly (${measureText(a.measure)}) starting ${a.startDate} (${categoriesText(a.categories)})`}
                      onClick={() => toggle(k)}
                    >
                      {isOpen ? '▾' : '▸'} {a.startDate}
                    </button>
                  </td>
                  {columns.map((c) => (
                    <td
                      key={c.label}
                      className={c.num ? 'num' : c.wrap ? 'wrap' : c.narrow ? 'narrow' : undefined}
                    >
                      {c.cell(a)}
                    </td>
                  ))}
                </tr>
                {isOpen && (
                  <tr className="detail-row">
                    <td colSpan={columns.length + 1}>
                      <p className="explorer-link">
                        <Link to={anomalyExplorerHref(a)}>Open in explorer</Link>
                      </p>
                      <AnomalyDetail anomaly={a} />
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

export function AggregateTable({ aggregates }: { aggregates: Aggregate[] }) {
  const [open, setOpen] = useState<string | null>(null);
  if (aggregates.length === 0) return <p className="muted">No aggregates.</p>;
  return (
    <div className="table-wrap">
      <table className="results">
        <caption className="sr-only">Aggregates</caption>
        <thead>
          <tr>
            <th scope="col">Start date</th>
            <th scope="col">Types</th>
            <th scope="col">Measure</th>
            <th scope="col">Data view</th>
            <th scope="col" className="num">
              N
            </th>
            <th scope="col" className="num">
              Duration
            </th>
            <th scope="col" className="num">
              Change
            </th>
            <th scope="col" className="num">
              Change %
            </th>
            <th scope="col" className="num">
              Share %
            </th>
            <th scope="col">Common categories</th>
            <th scope="col">Different categories</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {aggregates.map((g) => (
            <Fragment key={g.id}>
              <tr>
                <td>
                  <button
                    type="button"
                    className="link"
                    aria-expanded={open === g.id}
                    onClick={() => setOpen(open === g.id ? null : g.id)}
                  >
                    {open === g.id ? '▾' : '▸'} {g.startDate}
                  </button>
                </td>
                <td className="narrow">{g.types.join(', ')}</td>
                <td>{measureText(g.measure)}</td>
                <td className="narrow">{g.dataView}</td>
                <td className="num">{g.n}</td>
                <td className="num">{g.duration}</td>
                <td className="num">{fmt(g.change)}</td>
                <td className="num">{pct(g.changePct)}</td>
                <td className="num">{pct(g.sharePct)}</td>
                <td className="narrow wide">{categoriesText(g.commonCategories)}</td>
                <td className="narrow">{g.differentCategories.join(', ') || '–'}</td>
                <td>
                  <Badge tone={g.result === 'Positive' ? 'pos' : 'neg'}>{g.result}</Badge>
                </td>
              </tr>
              {open === g.id && (
                <tr className="detail-row">
                  <td colSpan={11}>
                    <AnomalyTable
                      anomalies={g.members}
                      caption={`Members of the aggregate starting ${g.startDate}`}
                    />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** What a run searched (the resolved window) and the service's warnings about the filter. */
export function RunInfo({ run }: { run: FilterRun }) {
  // A paged answer (explorer/paged-results.tsx) holds one page: its total is the result's size.
  const total = (run as FilterRun & { page?: { total: number } }).page?.total ?? run.anomalies.length;
  return (
    <>
      {run.timeRange && (
        <p className="muted">
          {run.timeRange.dateFrom} – {run.timeRange.dateTo} · {total} anomal
          {total === 1 ? 'y' : 'ies'}
          {run.aggregates
            ? ` · ${run.aggregates.length} aggregate${run.aggregates.length === 1 ? '' : 's'}`
            : ''}
        </p>
      )}
      {run.warnings?.map((w) => (
        <p key={w} className="warning">
          {w}
        </p>
      ))}
    </>
  );
}
