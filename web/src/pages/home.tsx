/** Home: the caller's pinned and shared filters, each headed by its comment, with summary, results and aggregates. */
import { useState } from 'react';
import { FIRST_PAGE_SIZE, PagedAnomalyTable } from '../components/explorer/paged-results';
import { AggregateTable, RunInfo } from '../components/results';
import { SummaryBox } from '../components/summary-box';
import { Loading, Problem } from '../components/ui';
import { api, isMissingEndpoint } from '../lib/api';
import { Link } from '../lib/router';
import { isAdmin, useMe } from '../lib/session';
import type { Filter, FilterRun } from '../lib/types';
import { useShowDismissed } from '../lib/show-dismissed';
import { useLoad } from '../lib/use-load';
import { TopCharts } from './home-charts';

/** Pinned filters first, then filters shared with the caller, each once. */
async function homeFilters(): Promise<Filter[]> {
  const all = await api<Filter[]>('GET', '/anomaly-filters');
  const pinned = all.filter((f) => f.pinned);
  const shared = all.filter((f) => !f.pinned && !f.isOwner);
  return [...pinned, ...shared];
}

export function HomePage() {
  const me = useMe();
  const filters = useLoad(homeFilters, []);
  const [showDismissed, setShowDismissed] = useShowDismissed();
  return (
    <div>
      <h1>Home</h1>
      <label className="muted">
        <input type="checkbox" checked={showDismissed} onChange={(e) => setShowDismissed(e.target.checked)} />{' '}
        Show dismissed (marked expected or not an anomaly)
      </label>
      {filters.loading && !filters.data && <Loading what="Loading your filters" />}
      {isMissingEndpoint(filters.error) ? (
        <p className="muted">Saved filters are not available in this service yet.</p>
      ) : (
        <Problem error={filters.error} />
      )}
      {filters.data?.length === 0 && (
        <div className="empty card">
          <p>No pinned or shared filters yet.</p>
          {isAdmin(me) ? (
            <p>
              Create one on the <Link to="/filters">Filters</Link> page and pin it to see it here.
            </p>
          ) : (
            <p>Ask an administrator to share a filter with you; it appears here.</p>
          )}
        </div>
      )}
      {filters.data?.map((f) => (
        <FilterCard key={f.id} filter={f} onChanged={filters.reload} showDismissed={showDismissed} />
      ))}
    </div>
  );
}

function FilterCard({
  filter,
  onChanged,
  showDismissed,
}: {
  filter: Filter;
  onChanged: () => void;
  showDismissed: boolean;
}) {
  const run = useLoad(
    () =>
      api<FilterRun>(
        'GET',
        `/anomalies/by-filter/${filter.id}?pageSize=${FIRST_PAGE_SIZE}&showDismissed=${showDismissed}`,
      ),
    [filter.id, showDismissed],
  );
  const [error, setError] = useState<unknown>(null);
  const headingId = `filter-${filter.id}-title`;
  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    try {
      await fn();
      onChanged();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section className="card filter-card" aria-labelledby={headingId}>
      <header>
        <div>
          <h2 id={headingId}>{filter.comment || filter.name}</h2>
          <p className="muted">
            {filter.name} · {filter.timeRange}
            {filter.timeRange === 'Custom' ? ` ${filter.dateFrom} – ${filter.dateTo}` : ''} · sorted by{' '}
            {filter.sortBy}, top {filter.limit}
            {!filter.isOwner && ` · shared by ${filter.ownerEmail}`}
            {filter.pinned && ' · pinned'}
          </p>
        </div>
        <div className="actions">
          <button
            type="button"
            onClick={() =>
              act(() => api('PUT', `/anomaly-filters/${filter.id}/pin`, { pinned: !filter.pinned }))
            }
          >
            {filter.pinned ? 'Unpin' : 'Pin'}
          </button>
          <Link className="button" to={`/filters/${filter.id}`}>
            {filter.isOwner ? 'Edit' : 'Preview changes'}
          </Link>
          {!filter.isOwner && (
            <button
              type="button"
              onClick={() => act(() => api('DELETE', `/anomaly-filters/${filter.id}/share`))}
            >
              Leave share
            </button>
          )}
        </div>
      </header>
      <Problem error={error} />
      {filter.isSummarized && <SummaryBox filter={filter} />}
      {run.loading && !run.data && <Loading what="Running the filter" />}
      <Problem error={run.error} />
      {run.data && (
        <>
          <RunInfo run={run.data} />
          <TopCharts anomalies={run.data.anomalies} />
          {run.data.aggregates && (
            <>
              <h3>Aggregates</h3>
              <AggregateTable aggregates={run.data.aggregates} />
            </>
          )}
          <h3>Anomalies</h3>
          <PagedAnomalyTable
            filterId={filter.id}
            filterName={filter.name}
            first={run.data}
            showDismissed={showDismissed}
          />
        </>
      )}
    </section>
  );
}
