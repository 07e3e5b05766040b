/** API keys (admin): list without the secret, create (the key is shown once), revoke. */
import { type FormEvent, useState } from 'react';
import { ConfirmButton, Field, errorsFor, Loading, PageHeader, Problem } from '../components/ui';
import { api } from '../lib/api';
import { when } from '../lib/format';
import { useMe } from '../lib/session';
import type { ApiKey, User } from '../lib/types';
import { useLoad } from '../lib/use-load';

const PERMISSIONS = [
  ['read', 'Read data'],
  ['write', 'Change filters, feedback, alerts and summaries'],
  ['process', 'Start jobs (load, process, custom load)'],
  ['admin', 'Administer'],
] as const;

export function ApiKeysPage() {
  const me = useMe();
  const keys = useLoad(() => api<ApiKey[]>('GET', '/api-keys'), []);
  const users = useLoad(() => api<User[]>('GET', '/users'), []);
  const [name, setName] = useState('');
  const [perms, setPerms] = useState<Set<string>>(new Set(['read']));
  const [userId, setUserId] = useState<number>(me.userId);
  const [fresh, setFresh] = useState<ApiKey | null>(null);
  const [error, setError] = useState<unknown>(null);

  const create = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      setFresh(await api<ApiKey>('POST', '/api-keys', { name, permissions: [...perms], userId }));
      setName('');
      await keys.reload();
    } catch (err) {
      setError(err);
    }
  };
  const revoke = async (k: ApiKey) => {
    setError(null);
    try {
      await api('DELETE', `/api-keys/${k.id}`);
      await keys.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <div>
      <PageHeader title="API keys" />
      <form className="card" onSubmit={create} aria-labelledby="key-form-title">
        <h2 id="key-form-title">New API key</h2>
        <div className="row">
          <Field label="Name" errors={errorsFor(error, 'name')}>
            {(f) => <input id={f.id} required value={name} onChange={(e) => setName(e.target.value)} />}
          </Field>
          <Field label="For user" errors={errorsFor(error, 'userId')}>
            {(f) => (
              <select id={f.id} value={userId} onChange={(e) => setUserId(Number(e.target.value))}>
                {(users.data ?? [{ id: me.userId, email: me.email } as User]).map((u) => (
                  <option key={u.id} value={u.id}>
                    {u.email}
                  </option>
                ))}
              </select>
            )}
          </Field>
        </div>
        <fieldset className="checks">
          <legend>Permissions</legend>
          {PERMISSIONS.map(([p, label]) => (
            <label key={p}>
              <input
                type="checkbox"
                checked={perms.has(p)}
                onChange={(e) => {
                  const next = new Set(perms);
                  if (e.target.checked) next.add(p);
                  else next.delete(p);
                  setPerms(next);
                }}
              />{' '}
              {label}
            </label>
          ))}
          {errorsFor(error, 'permissions', true).length > 0 && (
            <div className="field-error">{errorsFor(error, 'permissions', true).join('; ')}</div>
          )}
        </fieldset>
        <Problem error={error} shown={['name', 'userId', 'permissions']} />
        <button type="submit" className="primary" disabled={perms.size === 0}>
          Create key
        </button>
      </form>
      {fresh?.key && (
        <div className="card fresh-key" role="status">
          <p>
            <strong>Copy the key now:</strong> it is not shown again.
          </p>
          <code className="secret">{fresh.key}</code>
        </div>
      )}
      {keys.loading && !keys.data && <Loading />}
      {keys.data?.length === 0 && <p className="muted">No API keys yet.</p>}
      {keys.data && keys.data.length > 0 && (
        <table className="list">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">User</th>
              <th scope="col">Permissions</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td className="mono">{k.prefix}…</td>
                <td>{k.userEmail}</td>
                <td>{k.permissions.join(', ')}</td>
                <td>{when(k.createdAt)}</td>
                <td>{when(k.lastUsedAt)}</td>
                <td>{k.revokedAt ? `revoked ${when(k.revokedAt)}` : 'active'}</td>
                <td>
                  {!k.revokedAt && (
                    <ConfirmButton
                      label="Revoke"
                      question={`Revoke ${k.name}?`}
                      onConfirm={() => revoke(k)}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
