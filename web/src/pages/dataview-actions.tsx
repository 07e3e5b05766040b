/** The Management card of a saved data view: the actions its state allows (all disabled while one runs). */
import { ConfirmButton } from '../components/ui';
import type * as Api from '../lib/api-types.gen';
import { api } from '../lib/api';
import { ACTIONS, type ActionDef } from '../lib/dataviews';
import { navigate } from '../lib/router';
import type { DataViewDoc } from '../lib/types';

/**
 * What the action endpoints answer: the view (deploy, enable, …), a queued job with its licence warnings,
 * the removed jobs (clear) or the baselines' rebuild with its message. The notice reads whichever it got.
 */
type ActionAnswer = Partial<Api.QueuedJob & Api.JobsCleared & Api.BaselineRebuild>;

function actionNotice(label: string, r: ActionAnswer | undefined): string {
  let text = `${label}: done.`;
  if (r?.message) text = r.message;
  else if (r?.kind && r.id !== undefined) text = `${label}: job #${r.id} (${r.kind}) queued.`;
  else if (r?.removed !== undefined)
    text = `${label}: ${r.removed} queued job${r.removed === 1 ? '' : 's'} removed.`;
  return r?.warnings?.length ? `${text} ${r.warnings.join(' ')}` : text;
}

interface Props {
  doc: DataViewDoc;
  dirty: boolean;
  /** The action running now (its key), or null. */
  running: string | null;
  /** Runs `work` as the page's one running action: it disables every button meanwhile. */
  runAs: (key: string, work: () => Promise<string | undefined>) => Promise<void>;
  /** The view after an action changed it. */
  onChanged: (doc: DataViewDoc) => void;
}

export function ActionsCard({ doc, dirty, running, runAs, onChanged }: Props) {
  const busy = running !== null;
  const run = (a: ActionDef) =>
    runAs(a.key, async () => {
      const r = await api<ActionAnswer | undefined>('POST', `/dataviews/${doc.id}${a.path}`);
      onChanged(await api<DataViewDoc>('GET', `/dataviews/${doc.id}`));
      return actionNotice(a.label, r);
    });
  const remove = () =>
    runAs('delete', async () => {
      await api('DELETE', `/dataviews/${doc.id}`);
      navigate('/dataviews');
      return undefined;
    });
  return (
    <section className="card" aria-labelledby="actions-title" aria-busy={busy}>
      <h2 id="actions-title">Management</h2>
      {dirty && <p className="warning">Save your changes first: actions work on the saved definition.</p>}
      <div className="action-list">
        {ACTIONS.filter((a) => a.available(doc)).map((a) =>
          a.confirm ? (
            <ConfirmButton
              key={a.key}
              label={a.label}
              question={a.confirm}
              disabled={busy}
              onConfirm={() => run(a)}
            />
          ) : (
            <button key={a.key} type="button" disabled={busy} onClick={() => run(a)}>
              {running === a.key ? `${a.label}…` : a.label}
            </button>
          ),
        )}
        {doc.state === 'prepared' && (
          <ConfirmButton
            label="Delete data view"
            question="Delete this data view?"
            disabled={busy}
            onConfirm={remove}
          />
        )}
      </div>
    </section>
  );
}
