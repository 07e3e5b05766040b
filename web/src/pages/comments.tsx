/** Comments on the caller's data views: list per data view or the caller's own, add, edit and delete. */
import { useState } from 'react';
import { CommentForm } from '../components/comment-form';
import { ConfirmButton, Field, Loading, Notice, PageHeader, Problem } from '../components/ui';
import { api, enc } from '../lib/api';
import { dataViewLabel } from '../lib/dataviews';
import { categoriesText } from '../lib/format';
import { isAdmin, useMe } from '../lib/session';
import type { Comment, DataViewLite } from '../lib/types';
import { useLoad } from '../lib/use-load';

export function CommentsPage() {
  const me = useMe();
  const views = useLoad(() => api<DataViewLite[]>('GET', '/dataviews/lite'), []);
  const [scope, setScope] = useState<string>('mine');
  const list = useLoad(
    () =>
      scope === 'mine'
        ? api<Comment[]>('GET', `/comments/by-email/${enc(me.email)}`)
        : api<Comment[]>('GET', `/comments/by-dataview/${scope}`),
    [scope, me.email],
  );
  const [editing, setEditing] = useState<Comment | 'new' | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const viewName = (id: number) => {
    const v = views.data?.find((x) => x.id === id);
    return v ? dataViewLabel(v) : `#${id}`;
  };

  const remove = async (c: Comment) => {
    setError(null);
    try {
      await api('DELETE', `/comments/ui/${c.id}`);
      setNotice('Comment deleted.');
      await list.reload();
    } catch (e) {
      setError(e);
    }
  };

  return (
    <div>
      <PageHeader title="Comments">
        <button
          type="button"
          className="primary"
          onClick={() => setEditing('new')}
          disabled={!views.data?.length}
        >
          Add comment
        </button>
      </PageHeader>
      {editing && (
        <div className="card">
          <h2>{editing === 'new' ? 'New comment' : 'Edit comment'}</h2>
          <CommentForm
            initial={
              editing === 'new' ? { dataViewId: scope !== 'mine' ? Number(scope) : undefined } : editing
            }
            dataViews={views.data ?? []}
            onSaved={async () => {
              setEditing(null);
              setNotice('Comment saved.');
              await list.reload();
            }}
            onCancel={() => setEditing(null)}
          />
        </div>
      )}
      <div className="row filters-bar">
        <Field label="Show">
          {(f) => (
            <select id={f.id} value={scope} onChange={(e) => setScope(e.target.value)}>
              <option value="mine">My comments</option>
              {views.data?.map((v) => (
                <option key={v.id} value={v.id}>
                  All on {dataViewLabel(v)}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Notice text={notice} />
      <Problem error={list.error ?? views.error ?? error} />
      {list.loading && !list.data && <Loading />}
      {list.data?.length === 0 && <p className="muted">No comments.</p>}
      {list.data && list.data.length > 0 && (
        <table className="list">
          <thead>
            <tr>
              <th scope="col">Data view</th>
              <th scope="col">Valid</th>
              <th scope="col">Categories</th>
              <th scope="col">Comment</th>
              <th scope="col">Author</th>
              <th scope="col">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.data.map((c) => {
              const mine = c.email.toLowerCase() === me.email.toLowerCase() || isAdmin(me);
              return (
                <tr key={c.id}>
                  <td>{viewName(c.dataViewId)}</td>
                  <td>
                    {c.dateFrom} – {c.dateTo}
                  </td>
                  <td>{categoriesText(c.categories)}</td>
                  <td className="wrap">{c.text}</td>
                  <td>{c.email}</td>
                  <td className="row-actions">
                    {mine && (
                      <>
                        <button
                          type="button"
                          onClick={() => setEditing(c)}
                          aria-label={`Edit comment ${c.id}`}
                        >
                          Edit
                        </button>
                        <ConfirmButton
                          label="Delete"
                          question="Delete this comment?"
                          onConfirm={() => remove(c)}
                        />
                      </>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
    </div>
  );
}
