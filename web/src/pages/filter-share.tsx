/** The owner's share panel: check the recipients and save the list (it replaces the previous one). */
import type * as Api from '../lib/api-types.gen';
import { useEffect, useState } from 'react';
import { Notice, Problem } from '../components/ui';
import { api } from '../lib/api';
import type { Filter } from '../lib/types';
import { useLoad } from '../lib/use-load';

export function SharePanel({ filter, onShared }: { filter: Filter; onShared: (f: Filter) => void }) {
  const users = useLoad(() => api<Api.ShareableUser[]>('GET', '/anomaly-filters/shareable-users'), []);
  const [chosen, setChosen] = useState<Set<number>>(new Set(filter.sharedWith ?? []));
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => setChosen(new Set(filter.sharedWith ?? [])), [filter.sharedWith]);

  const save = async () => {
    setError(null);
    try {
      const ids = await api<number[]>('POST', `/anomaly-filters/${filter.id}/share`, {
        targetUserIds: [...chosen],
      });
      onShared({ ...filter, sharedWith: ids });
      setNotice(
        ids.length
          ? `Shared with ${ids.length} user${ids.length === 1 ? '' : 's'}.`
          : 'Not shared with anyone.',
      );
    } catch (e) {
      setError(e);
    }
  };

  return (
    <fieldset className="checks share">
      <legend>Share with</legend>
      {users.data?.length === 0 && <p className="muted">There is nobody to share with.</p>}
      {users.data?.map((u) => (
        <label key={u.id}>
          <input
            type="checkbox"
            checked={chosen.has(u.id)}
            onChange={(e) => {
              const next = new Set(chosen);
              if (e.target.checked) next.add(u.id);
              else next.delete(u.id);
              setChosen(next);
            }}
          />{' '}
          {u.email}
        </label>
      ))}
      <Problem error={users.error ?? error} />
      <div className="actions">
        <button type="button" onClick={save}>
          Save sharing
        </button>
      </div>
      <Notice text={notice} />
    </fieldset>
  );
}
