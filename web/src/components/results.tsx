/** Filter results: the anomaly table (each row opens its chart and comments) and the aggregates table. */
import { Fragment, type ReactNode, useState } from 'react';
import { categoriesText, fmt, pct } from '../lib/format';
import type { Aggregate, Anomaly, FilterRun } from '../lib/types';
import { AnomalyDetail } from './anomaly-detail';
import { Badge } from './ui';

const key = (a: Anomaly) => `${a.dataViewId}:${a.id}`;

interface Column {
  label: string;
  num?: boolean;
  /** Shown in the compact table of the filter preview. */
  compact?: boolean;
  cell: (a: Anomaly) => ReactNode;
}

// The first column (start date, which opens the chart) is drawn separately.
const COLUMNS: Column[] = [
  { label: 'Type', compact: true, cell: (a) => a.type },
  { label: 'Data view', cell: (a) => a.dataView },
  { label: 'Categories', compact: true, cell: (a) => categoriesText(a.categories) },
  { label: 'Duration', num: true, compact: true, cell: (a) => a.duration },
  { label: 'Actual', num: true, compact: true, cell: (a) => fmt(a.actualValue) },
  { label: 'Expected', num: true, compact: true, cell: (a) => fmt(a.predictedValue) },
  { label: 'Change', num: true, cell: (a) => fmt(a.change) },
  { label: 'Change %', num: true, compact: true, cell: (a) => pct(a.changePct) },
  { label: 'Share %', num: true, cell: (a) => pct(a.sharePct) },
  { label: 'Recurrence', num: true, cell: (a) => fmt(a.recurrence) },
  {
    label: 'Result',
    compact: true,
    cell: (a) => <Badge tone={a.result === 'Positive' ? 'pos' : 'neg'}>{a.result}</Badge>,
  },
  { label: 'SIN', num: true, compact: true, cell: (a) => fmt(a.sin) },
  { label: 'SIM', num: true, cell: (a) => fmt(a.sim) },
  { label: 'Comments', cell: (a) => (a.comments?.length ? `${a.comments.length} 💬` : '') },
];

interface TableProps {
  anomalies: Anomaly[];
  caption: string;
  /** Fewer columns, for narrow panes. */
  compact?: boolean;
}

export function AnomalyTable({ anomalies, caption, compact }: TableProps) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  if (anomalies.length === 0)
    return <p className="muted">No anomalies match this filter in its time range.</p>;
  const columns = compact ? COLUMNS.filter((c) => c.compact) : COLUMNS;
  const toggle = (k: string) =>
    setOpen((s) => {
      const next = new Set(s);
      if (next.has(k)) next.delete(k);
      else next.add(k);
      return next;
    });
  return (
    <div className="table-wrap">
      <table className="results">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Start date</th>
            {columns.map((c) => (
              <th key={c.label} scope="col" className={c.num ? 'num' : undefined}>
                {c.label}
              </th>
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
                      aria-label={`${isOpen ? 'Hide' : 'Show'} chart of the ${a.type} anomaly starting ${a.startDate} (${categoriesText(a.categories)})`}
                      onClick={() => toggle(k)}
                    >
                      {isOpen ? '▾' : '▸'} {a.startDate}
                    </button>
                  </td>
                  {columns.map((c) => (
                    <td key={c.label} className={c.num ? 'num' : undefined}>
                      {c.cell(a)}
                    </td>
                  ))}
                </tr>
                {isOpen && (
                  <tr className="detail-row">
                    <td colSpan={columns.length + 1}>
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
                <td>{g.types.join(', ')}</td>
                <td>{g.dataView}</td>
                <td className="num">{g.n}</td>
                <td className="num">{g.duration}</td>
                <td className="num">{fmt(g.change)}</td>
                <td className="num">{pct(g.changePct)}</td>
                <td className="num">{pct(g.sharePct)}</td>
                <td>{categoriesText(g.commonCategories)}</td>
                <td>{g.differentCategories.join(', ') || '–'}</td>
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
  return (
    <>
      {run.timeRange && (
        <p className="muted">
          {run.timeRange.dateFrom} – {run.timeRange.dateTo} · {run.anomalies.length} anomal
          {run.anomalies.length === 1 ? 'y' : 'ies'}
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
