/** Users (admin): accounts with role, enabled flag and assigned data views. */
import { type FormEvent, useState } from 'react';
import { ConfirmButton, Field, errorsFor, Loading, Notice, PageHeader, Problem } from '../components/ui';
import { api } from '../lib/api';
import { dataViewLabel } from '../lib/dataviews';
import type { DataViewLite, User } from '../lib/types';
import { useLoad } from '../lib/use-load';

export function UsersPage() {
  const users = useLoad(() => api<User[]>('GET', '/users'), []);
  const views = useLoad(() => api<DataViewLite[]>('GET', '/dataviews/lite'), []);
  const [editing, setEditing] = useState<User | 'new' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const viewName = (id: number) => {
    const v = views.data?.find((x) => x.id === id);
    return v ? dataViewLabel(v) : `#${id}`;
  };
  const remove = async (u: User) => {
    setError(null);
    try {
      await api('DELETE', `/users/${u.id}`);
      setNotice(`${u.email} deleted.`);
      await users.reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <div>
      <PageHeader title="Users">
        <button type="button" className="primary" onClick={() => setEditing('new')}>
          New user
        </button>
      </PageHeader>
      {editing && (
        <UserForm
          user={editing === 'new' ? null : editing}
          views={views.data ?? []}
          onDone={async (saved) => {
            setEditing(null);
            if (saved) {
              setNotice(`${saved.email} saved.`);
              await users.reload();
            }
          }}
        />
      )}
      <Notice text={notice} />
      <Problem error={users.error ?? error} />
      {users.loading && !users.data && <Loading />}
      {users.data && (
        <table className="list">
          <thead>
            <tr>
              <th scope="col">E-mail</th>
              <th scope="col">Role</th>
              <th scope="col">Enabled</th>
              <th scope="col">Data views</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.data.map((u) => (
              <tr key={u.id}>
                <td>{u.email}</td>
                <td>{u.role}</td>
                <td>{u.enabled ? 'yes' : 'no'}</td>
                <td className="wrap">
                  {u.role === 'admin' ? 'all' : u.dataViewIds.map(viewName).join(', ') || 'none'}
                </td>
                <td className="row-actions">
                  <button type="button" onClick={() => setEditing(u)} aria-label={`Edit ${u.email}`}>
                    Edit
                  </button>
                  <ConfirmButton label="Delete" question={`Delete ${u.email}?`} onConfirm={() => remove(u)} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

function UserForm({
  user,
  views,
  onDone,
}: {
  user: User | null;
  views: DataViewLite[];
  onDone: (u: User | null) => void;
}) {
  const [email, setEmail] = useState(user?.email ?? '');
  const [role, setRole] = useState<User['role']>(user?.role ?? 'data-user');
  const [password, setPassword] = useState('');
  const [enabled, setEnabled] = useState(user?.enabled ?? true);
  const [ids, setIds] = useState<Set<number>>(new Set(user?.dataViewIds ?? []));
  const [error, setError] = useState<unknown>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    const body = { email, role, enabled, dataViewIds: [...ids], ...(password ? { password } : {}) };
    try {
      onDone(
        user ? await api<User>('PUT', `/users/${user.id}`, body) : await api<User>('POST', '/users', body),
      );
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="card" onSubmit={submit} aria-labelledby="user-form-title">
      <h2 id="user-form-title">{user ? `Edit ${user.email}` : 'New user'}</h2>
      <div className="row">
        <Field label="E-mail" errors={errorsFor(error, 'email')}>
          {(f) => (
            <input id={f.id} type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          )}
        </Field>
        <Field label="Role" errors={errorsFor(error, 'role')}>
          {(f) => (
            <select id={f.id} value={role} onChange={(e) => setRole(e.target.value as User['role'])}>
              <option value="data-user">Data user</option>
              <option value="admin">Admin</option>
            </select>
          )}
        </Field>
        <Field label={user ? 'New password (optional)' : 'Password'} errors={errorsFor(error, 'password')}>
          {(f) => (
            <input
              id={f.id}
              type="password"
              autoComplete="new-password"
              required={!user}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <label className="inline">
          <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.target.checked)} /> Enabled
        </label>
      </div>
      <fieldset className="checks">
        <legend>
          Assigned data views {role === 'admin' && <small className="muted">(admins see all)</small>}
        </legend>
        {views.length === 0 && <p className="muted">No data views yet.</p>}
        {views.map((v) => (
          <label key={v.id}>
            <input
              type="checkbox"
              checked={ids.has(v.id)}
              onChange={(e) => {
                const next = new Set(ids);
                if (e.target.checked) next.add(v.id);
                else next.delete(v.id);
                setIds(next);
              }}
            />{' '}
            {dataViewLabel(v)}
          </label>
        ))}
        {errorsFor(error, 'dataViewIds').length > 0 && (
          <div className="field-error">{errorsFor(error, 'dataViewIds').join('; ')}</div>
        )}
      </fieldset>
      <Problem error={error} shown={['email', 'role', 'password', 'dataViewIds']} />
      <div className="actions">
        <button type="submit" className="primary">
          {user ? 'Save user' : 'Create user'}
        </button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
