/** Filters (admin): every filter the caller sees, with pin and a link to the editor. */
import { useState } from 'react';
import { Loading, PageHeader, Problem } from '../components/ui';
import { api } from '../lib/api';
import { Link } from '../lib/router';
import type { Filter } from '../lib/types';
import { useLoad } from '../lib/use-load';

export function FiltersPage() {
  const list = useLoad(() => api<Filter[]>('GET', '/anomaly-filters'), []);
  const [error, setError] = useState<unknown>(null);
  const pin = async (f: Filter) => {
    setError(null);
    try {
      await api('PUT', `/anomaly-filters/${f.id}/pin`, { pinned: !f.pinned });
      await list.reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div>
      <PageHeader title="Filters">
        <Link className="button primary" to="/filters/new">
          New filter
        </Link>
      </PageHeader>
      <Problem error={list.error ?? error} />
      {list.loading && !list.data && <Loading />}
      {list.data?.length === 0 && <p className="muted">No filters yet.</p>}
      {list.data && list.data.length > 0 && (
        <table className="list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Comment</th>
              <th scope="col">Time range</th>
              <th scope="col">Owner</th>
              <th scope="col">Shared with</th>
              <th scope="col">Pinned</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((f) => (
              <tr key={f.id}>
                <td>
                  <Link to={`/filters/${f.id}`}>{f.name}</Link>
                </td>
                <td>{f.comment}</td>
                <td>{f.timeRange}</td>
                <td>{f.isOwner ? 'you' : f.ownerEmail}</td>
                <td>
                  {f.sharedWith?.length
                    ? `${f.sharedWith.length} user${f.sharedWith.length === 1 ? '' : 's'}`
                    : '–'}
                </td>
                <td>{f.pinned ? 'yes' : 'no'}</td>
                <td>
                  <button
                    type="button"
                    onClick={() => pin(f)}
                    aria-label={`${f.pinned ? 'Unpin' : 'Pin'} ${f.name}`}
                  >
                    {f.pinned ? 'Unpin' : 'Pin'}
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
