/** Connectors (admin): the list in state colours, create and edit with masked secrets, test now, delete. */
import type * as Api from '../lib/api-types.gen';
import { useState } from 'react';
import { Badge, ConfirmButton, Loading, Notice, PageHeader, Problem } from '../components/ui';
import { ApiError, api, enc } from '../lib/api';
import { when } from '../lib/format';
import type { Connector } from '../lib/types';
import { useLoad } from '../lib/use-load';
import { ConnectorForm } from './connector-form';

const TONE = { active: 'green', failed: 'red', untested: 'gray' } as const;

/** The masked configuration as one line (keys and their masked values). */
function masked(c: Record<string, unknown>): string {
  return Object.entries(c)
    .map(([k, v]) => `${k}: ${String(v)}`)
    .join(' · ');
}

export function ConnectorsPage() {
  const list = useLoad(() => api<Connector[]>('GET', '/connectors'), []);
  const [editing, setEditing] = useState<Connector | 'new' | null>(null);
  const [testing, setTesting] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const test = async (c: Connector) => {
    setTesting(c.name);
    setError(null);
    setNotice(null);
    try {
      const r = await api<Api.ConnectorTestResult>('POST', `/connectors/${enc(c.name)}/test`);
      if (r.ok) setNotice(`${c.name} passed the test: ${r.message}`);
      else setError(new ApiError(0, `${c.name} failed the test: ${r.message}`));
      await list.reload();
    } catch (e) {
      setError(e);
    } finally {
      setTesting(null);
    }
  };

  const remove = async (c: Connector) => {
    setError(null);
    try {
      await api('DELETE', `/connectors/${enc(c.name)}`);
      setNotice(`Connector ${c.name} deleted.`);
      await list.reload();
    } catch (e) {
      setError(e);
    }
  };

  return (
    <div>
      <PageHeader title="Connectors">
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          New connector
        </button>
      </PageHeader>
      {editing && (
        <ConnectorForm
          connector={editing === 'new' ? null : editing}
          onDone={async (saved) => {
            setEditing(null);
            if (saved) {
              setNotice(`Connector ${saved.name} saved.`);
              await list.reload();
            }
          }}
        />
      )}
      <Notice text={notice} />
      <Problem error={list.error ?? error} />
      {list.loading && !list.data && <Loading />}
      {list.data?.length === 0 && <p className="muted">No connectors yet.</p>}
      {list.data && list.data.length > 0 && (
        <table className="list">
          <thead>
            <tr>
              <th scope="col">State</th>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Configuration</th>
              <th scope="col">Last test</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((c) => (
              <tr key={c.name}>
                <td>
                  <Badge tone={TONE[c.status] ?? 'gray'}>{c.status}</Badge>
                </td>
                <td>
                  <strong>{c.name}</strong>
                  {c.description && <div className="muted">{c.description}</div>}
                </td>
                <td>{c.type}</td>
                <td className="mono wrap">{masked(c.configuration)}</td>
                <td className="wrap">
                  {when(c.lastTestedAt)}
                  {c.lastTestMessage && <div className="muted">{c.lastTestMessage}</div>}
                </td>
                <td className="row-actions">
                  <button
                    type="button"
                    disabled={testing !== null}
                    onClick={() => test(c)}
                    aria-label={`Test ${c.name} now`}
                  >
                    {testing === c.name ? 'Testing…' : 'Test now'}
                  </button>
                  <button type="button" onClick={() => setEditing(c)} aria-label={`Edit ${c.name}`}>
                    Edit
                  </button>
                  <ConfirmButton label="Delete" question={`Delete ${c.name}?`} onConfirm={() => remove(c)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
