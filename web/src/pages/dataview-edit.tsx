/**
 * One data view: the schema-aware YAML editor (errors underlined as you type), the facts at the top
 * (state, last load, next scheduled load), the management actions its state allows, cron Validate,
 * the sample data preview and job monitoring.
 */
import { useMemo, useState } from 'react';
import { Loading, Notice, PageHeader, Problem } from '../components/ui';
import { ReplayPanel } from '../components/replay-panel';
import { YamlEditor } from '../components/yaml-editor';
import { api } from '../lib/api';
import { NEW_DATA_VIEW_YAML } from '../lib/dataviews';
import { navigate } from '../lib/router';
import type { DataViewDoc, DataViewStatus } from '../lib/types';
import { useDefinitionCheck } from '../lib/use-definition-check';
import { useLoad, usePoll } from '../lib/use-load';
import { definitionYaml, YamlText } from '../lib/yaml-doc';
import { ActionsCard } from './dataview-actions';
import { DataViewFacts } from './dataview-facts';
import { CronPanel, SamplePanel } from './dataview-panels';
import { StateBadge } from './dataviews';
import { JobsPanel } from './jobs-panel';

/** The view and its definition as the editor shows it: only what differs from the defaults. */
async function loadView(id: number): Promise<{ doc: DataViewDoc; yaml: string }> {
  const [doc, compact] = await Promise.all([
    api<DataViewDoc>('GET', `/dataviews/${id}`),
    api<DataViewDoc>('GET', `/dataviews/${id}?compact=true`),
  ]);
  return { doc, yaml: definitionYaml(compact) };
}

const CHECK_TEXT = {
  idle: '',
  checking: 'Checking…',
  valid: 'The definition is valid.',
  invalid: '',
} as const;

export function DataViewEditPage({ id, initialText }: { id: number | null; initialText?: string }) {
  const loaded = useLoad(() => (id ? loadView(id) : Promise.resolve(null)), [id]);
  const schema = useLoad(() => api<object>('GET', '/dataviews/definition-schema'), []);
  const [text, setText] = useState<string | null>(id ? null : (initialText ?? NEW_DATA_VIEW_YAML));
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
  const check = useDefinitionCheck(text, id);
  const parsed = useMemo(() => (text === null ? null : new YamlText(text)), [text]);
  const dirty = loaded.data ? text !== loaded.data.yaml : true;

  /** Runs one action at a time; its notice or error shows above the editor. */
  const runAs = async (key: string, work: () => Promise<string | undefined>) => {
    setRunning(key);
    setError(null);
    setNotice(null);
    try {
      const note = await work();
      if (note) setNotice(note);
      setRefresh((n) => n + 1);
    } catch (e) {
      setError(e);
      check.report(e);
    } finally {
      setRunning(null);
    }
  };

  const save = () =>
    runAs('save', async () => {
      if (text === null) return undefined;
      if (!doc) {
        const made = await api<DataViewDoc>('POST', '/dataviews', text, { yaml: true });
        navigate(`/dataviews/${made.id}`, { replace: true });
        return undefined;
      }
      const next = await api<DataViewDoc>('PUT', `/dataviews/${doc.id}`, text, { yaml: true });
      loaded.setData({ doc: next, yaml: text });
      return 'Saved.';
    });

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
      <Problem error={error} shown={check.markers.map((m) => m.path)} />
      <div className="split">
        <div className="editor-pane">
          <YamlEditor
            label="Definition (YAML, schemaVersion 3)"
            value={text}
            onChange={setText}
            markers={check.markers}
            schema={schema.data}
          />
          <p className="muted" aria-live="polite">
            {CHECK_TEXT[check.state]}
          </p>
        </div>
        <div className="side-pane">
          {doc ? (
            <ActionsCard
              doc={doc}
              dirty={dirty}
              running={running}
              runAs={runAs}
              onChanged={(fresh) => loaded.setData({ doc: fresh, yaml: loaded.data?.yaml ?? text })}
            />
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
      {doc && doc.state !== 'prepared' && <ReplayPanel viewId={doc.id} text={text} />}
    </div>
  );
}
