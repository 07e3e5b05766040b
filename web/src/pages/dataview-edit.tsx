/**
 * One data view: the YAML editor with errors in place, the management actions its state allows (all
 * disabled while one runs), cron Validate, the sample data preview and job monitoring.
 */
import { useMemo, useState } from 'react';
import { ConfirmButton, Loading, Notice, PageHeader, Problem } from '../components/ui';
import { YamlEditor } from '../components/yaml-editor';
import { ApiError, api } from '../lib/api';
import { ACTIONS, type ActionDef, NEW_DATA_VIEW_YAML } from '../lib/dataviews';
import { navigate } from '../lib/router';
import type { DataViewDoc, DataViewStatus } from '../lib/types';
import { useLoad, usePoll } from '../lib/use-load';
import { definitionYaml, YamlText } from '../lib/yaml-doc';
import { DataViewFacts } from './dataview-facts';
import { CronPanel, SamplePanel } from './dataview-panels';
import { JobsPanel } from './jobs-panel';
import { StateBadge } from './dataviews';

async function loadView(id: number): Promise<{ doc: DataViewDoc; yaml: string }> {
  const doc = await api<DataViewDoc>('GET', `/dataviews/${id}`);
  return { doc, yaml: definitionYaml(doc) };
}

/** What the action endpoints answer: a queued job, a count of removed jobs, a message, licence warnings. */
interface ActionAnswer {
  id?: number;
  kind?: string;
  removed?: number;
  message?: string;
  warnings?: string[];
}

function actionNotice(label: string, r: ActionAnswer | undefined): string {
  let text = `${label}: done.`;
  if (r?.message) text = r.message;
  else if (r?.kind && r.id !== undefined) text = `${label}: job #${r.id} (${r.kind}) queued.`;
  else if (r?.removed !== undefined)
    text = `${label}: ${r.removed} queued job${r.removed === 1 ? '' : 's'} removed.`;
  return r?.warnings?.length ? `${text} ${r.warnings.join(' ')}` : text;
}

export function DataViewEditPage({ id }: { id: number | null }) {
  const loaded = useLoad(() => (id ? loadView(id) : Promise.resolve(null)), [id]);
  const [text, setText] = useState<string | null>(id ? null : NEW_DATA_VIEW_YAML);
  const [error, setError] = useState<unknown>(null);
  const [running, setRunning] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [refresh, setRefresh] = useState(0);
  const doc = loaded.data?.doc ?? null;
  const status = useLoad(
    () => (id ? api<DataViewStatus>('GET', `/dataviews/${id}/status`) : Promise.resolve(undefined)),
    [id, refresh],
  );
  usePoll(() => void status.reload(), 3000, id !== null);

  if (loaded.data && text === null) setText(loaded.data.yaml);
  const parsed = useMemo(() => (text === null ? null : new YamlText(text)), [text]);
  const markers = parsed && error instanceof ApiError ? parsed.markers(error.errors) : [];
  const dirty = loaded.data ? text !== loaded.data.yaml : true;

  const save = async () => {
    if (text === null) return;
    setRunning('save');
    setError(null);
    setNotice(null);
    try {
      if (doc) {
        const next = await api<DataViewDoc>('PUT', `/dataviews/${doc.id}`, text, { yaml: true });
        loaded.setData({ doc: next, yaml: text });
        setNotice('Saved.');
      } else {
        const made = await api<DataViewDoc>('POST', '/dataviews', text, { yaml: true });
        navigate(`/dataviews/${made.id}`, { replace: true });
      }
    } catch (e) {
      setError(e);
    } finally {
      setRunning(null);
    }
  };

  const run = async (a: ActionDef) => {
    if (!doc) return;
    setRunning(a.key);
    setError(null);
    setNotice(null);
    try {
      const r = await api<ActionAnswer | undefined>('POST', `/dataviews/${doc.id}${a.path}`);
      const fresh = await api<DataViewDoc>('GET', `/dataviews/${doc.id}`);
      loaded.setData({ doc: fresh, yaml: loaded.data?.yaml ?? text ?? '' });
      setNotice(actionNotice(a.label, r));
      setRefresh((n) => n + 1);
    } catch (e) {
      setError(e);
    } finally {
      setRunning(null);
    }
  };

  const remove = async () => {
    if (!doc) return;
    setRunning('delete');
    try {
      await api('DELETE', `/dataviews/${doc.id}`);
      navigate('/dataviews');
    } catch (e) {
      setError(e);
      setRunning(null);
    }
  };

  if (loaded.error) return <Problem error={loaded.error} />;
  if (text === null || !parsed) return <Loading />;
  const busy = running !== null;
  const title = doc ? `${doc.metadata.domain} / ${doc.metadata.name}` : 'New data view';
  const cron = parsed.getString('source.cron') ?? doc?.source.cron ?? '';
  const connector = parsed.getString('source.connector') ?? doc?.source.connector ?? '';
  const loadQuery = parsed.getString('source.loadQuery') ?? '';
  const customQuery = parsed.getString('source.customLoadQuery') ?? '';

  return (
    <div>
      <PageHeader title={title}>
        {doc && <StateBadge state={doc.state} />}
        <button type="button" className="primary" disabled={busy || !dirty} onClick={save}>
          {running === 'save' ? 'Saving…' : doc ? 'Save' : 'Create data view'}
        </button>
        {doc && dirty && (
          <button type="button" disabled={busy} onClick={() => setText(loaded.data?.yaml ?? '')}>
            Discard changes
          </button>
        )}
      </PageHeader>
      {doc && <DataViewFacts status={status.data} />}
      <Notice text={notice} />
      <Problem error={error} shown={markers.length ? markers.map((m) => m.path) : []} />
      <div className="split">
        <div className="editor-pane">
          <YamlEditor
            label="Definition (YAML, schemaVersion 3)"
            value={text}
            onChange={setText}
            markers={markers}
          />
        </div>
        <div className="side-pane">
          {doc ? (
            <section className="card" aria-labelledby="actions-title" aria-busy={busy}>
              <h2 id="actions-title">Management</h2>
              {dirty && (
                <p className="warning">Save your changes first: actions work on the saved definition.</p>
              )}
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
          ) : (
            <p className="info">Management actions become available after the first save.</p>
          )}
          <CronPanel initial={cron} />
          <SamplePanel
            connector={connector}
            queries={[
              ['load query', loadQuery],
              ['custom load query', customQuery],
            ]}
          />
          {doc && doc.state !== 'prepared' && <JobsPanel id={doc.id} refreshKey={refresh} status={status} />}
        </div>
      </div>
    </div>
  );
}
