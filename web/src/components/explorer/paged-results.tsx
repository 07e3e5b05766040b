/**
 * A saved filter's anomalies one page at a time: the service sorts the whole Top N by the chosen column and
 * answers one page with the total (GET /anomalies/by-filter/{id}?offset&pageSize&sortBy&order), so a large
 * result never travels whole. "Export CSV" downloads every record in the current order.
 */
import { useState } from 'react';
import { api } from '../../lib/api';
import type { FilterRun } from '../../lib/types';
import { useLoad } from '../../lib/use-load';
import { AnomalyTable } from '../results';
import { Problem } from '../ui';
import './paged-results.css';

export const FIRST_PAGE_SIZE = 20;
const SIZES = [20, 50, 100];

type PagedRun = FilterRun & {
  page?: { offset: number; pageSize: number; sortBy: string; order: 'asc' | 'desc'; total: number };
};

interface Props {
  filterId: number;
  filterName: string;
  /** The first page as Home already read it (offset 0, the filter's order, FIRST_PAGE_SIZE). */
  first: PagedRun;
  /** Rows marked expected or not an anomaly are listed (after the others); hidden when false. */
  showDismissed?: boolean;
}

export function PagedAnomalyTable({ filterId, filterName, first, showDismissed = false }: Props) {
  const [offset, setOffset] = useState(0);
  const [pageSize, setPageSize] = useState(FIRST_PAGE_SIZE);
  const [sortBy, setSortBy] = useState('rank');
  const [order, setOrder] = useState<'asc' | 'desc'>('asc');
  const [exportError, setExportError] = useState<unknown>(null);
  const [exporting, setExporting] = useState(false);
  const initial = offset === 0 && pageSize === FIRST_PAGE_SIZE && sortBy === 'rank' && order === 'asc';
  const query = `offset=${offset}&pageSize=${pageSize}&sortBy=${encodeURIComponent(sortBy)}&order=${order}&showDismissed=${showDismissed}`;
  const page = useLoad(
    () =>
      initial ? Promise.resolve(first) : api<PagedRun>('GET', `/anomalies/by-filter/${filterId}?${query}`),
    [filterId, query, first],
  );
  const run = page.data ?? first;
  const total = run.page?.total ?? run.anomalies.length;
  const from = total === 0 ? 0 : offset + 1;
  const to = Math.min(offset + pageSize, total);
  const onSort = (key: string) => {
    if (key === sortBy) setOrder(order === 'asc' ? 'desc' : 'asc');
    else {
      setSortBy(key);
      // Measures read best largest first, text and dates in their natural order.
      setOrder(['startDate', 'type', 'dataView', 'result'].includes(key) ? 'asc' : 'desc');
    }
    setOffset(0);
  };
  const exportCsv = async () => {
    setExportError(null);
    setExporting(true);
    try {
      const text = await api<string>(
        'GET',
        `/anomalies/by-filter/${filterId}?format=csv&sortBy=${encodeURIComponent(sortBy)}&order=${order}&showDismissed=${showDismissed}`,
        undefined,
        { accept: 'text/csv' },
      );
      const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
      const a = document.createElement('a');
      a.href = url;
      a.download = `${filterName.replace(/[^\w.-]+/g, '_') || `filter-${filterId}`}-anomalies.csv`;
      document.body.append(a);
      a.click();
      a.remove();
      window.setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (e) {
      setExportError(e);
    } finally {
      setExporting(false);
    }
  };
  return (
    <div className="paged-results">
      <Problem error={page.error} />
      <Problem error={exportError} />
      <AnomalyTable
        anomalies={run.anomalies}
        caption={`Anomalies of ${filterName}, ${from} to ${to} of ${total}`}
        sort={{ by: sortBy, order, onSort }}
      />
      {total > 0 && (
        <div className="pager" aria-label={`Pages of ${filterName}`} role="group">
          <button
            type="button"
            disabled={offset === 0 || page.loading}
            onClick={() => setOffset(Math.max(0, offset - pageSize))}
          >
            ◀ Previous
          </button>
          <span aria-live="polite">
            {from}–{to} of {total}
            {page.loading && !initial ? ' (loading…)' : ''}
          </span>
          <button
            type="button"
            disabled={to >= total || page.loading}
            onClick={() => setOffset(offset + pageSize)}
          >
            Next ▶
          </button>
          <label>
            Rows per page{' '}
            <select
              value={pageSize}
              onChange={(e) => {
                setPageSize(Number(e.target.value));
                setOffset(0);
              }}
            >
              {SIZES.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="grow" disabled={exporting} onClick={exportCsv}>
            {exporting ? 'Exporting…' : 'Export CSV'}
          </button>
        </div>
      )}
    </div>
  );
}
