/** Data views (admin): the list in state colours (prepared red, disabled gray, enabled green) with name, domain and tag filters. */
import { useState } from 'react';
import { Badge, Field, Loading, PageHeader, Problem } from '../components/ui';
import { api, qs } from '../lib/api';
import { STATE_TEXT, toSummary } from '../lib/dataviews';
import { when } from '../lib/format';
import { Link } from '../lib/router';
import type { DataViewSummary } from '../lib/types';
import { useLoad } from '../lib/use-load';

export const STATE_TONE = { prepared: 'red', disabled: 'gray', enabled: 'green' } as const;

export function StateBadge({ state }: { state: DataViewSummary['state'] }) {
  return (
    <Badge tone={STATE_TONE[state]} title={STATE_TEXT[state]}>
      {state}
    </Badge>
  );
}

export function DataViewsPage() {
  const [name, setName] = useState('');
  const [domain, setDomain] = useState('');
  const [tag, setTag] = useState('');
  const all = useLoad(
    () => api<Record<string, unknown>[]>('GET', '/dataviews').then((l) => l.map(toSummary)),
    [],
  );
  const list = useLoad(
    () =>
      api<Record<string, unknown>[]>('GET', `/dataviews${qs({ name, domain, tag })}`).then((l) =>
        l.map(toSummary),
      ),
    [name, domain, tag],
  );
  const domains = [...new Set((all.data ?? []).map((v) => v.domain))].sort();
  const tags = [...new Set((all.data ?? []).flatMap((v) => v.tags))].sort();

  return (
    <div>
      <PageHeader title="Data views">
        <Link className="button" to="/dataviews/from-query">
          New from a query
        </Link>
        <Link className="button primary" to="/dataviews/new">
          New data view
        </Link>
      </PageHeader>
      <form className="row filters-bar" aria-label="Filter data views" onSubmit={(e) => e.preventDefault()}>
        <Field label="Name contains">
          {(f) => <input id={f.id} type="search" value={name} onChange={(e) => setName(e.target.value)} />}
        </Field>
        <Field label="Domain">
          {(f) => (
            <select id={f.id} value={domain} onChange={(e) => setDomain(e.target.value)}>
              <option value="">All domains</option>
              {domains.map((d) => (
                <option key={d}>{d}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Tag">
          {(f) => (
            <select id={f.id} value={tag} onChange={(e) => setTag(e.target.value)}>
              <option value="">All tags</option>
              {tags.map((t) => (
                <option key={t}>{t}</option>
              ))}
            </select>
          )}
        </Field>
      </form>
      <Problem error={list.error} />
      {list.loading && !list.data && <Loading />}
      {list.data?.length === 0 && <p className="muted">No data views match.</p>}
      {list.data && list.data.length > 0 && (
        <table className="list">
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">Domain / name</th>
              <th scope="col">Description</th>
              <th scope="col">Tags</th>
              <th scope="col">Connector</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((v) => (
              <tr key={v.id} className={`state-${v.state}`}>
                <td>
                  <StateBadge state={v.state} />
                </td>
                <td>
                  <Link to={`/dataviews/${v.id}`}>
                    {v.domain} / {v.name}
                  </Link>
                </td>
                <td>{v.description}</td>
                <td>
                  {v.tags.map((t) => (
                    <button
                      key={t}
                      type="button"
                      className="tag"
                      onClick={() => setTag(t)}
                      aria-label={`Show views tagged ${t}`}
                    >
                      {t}
                    </button>
                  ))}
                </td>
                <td>{v.connector}</td>
                <td>{when(v.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
