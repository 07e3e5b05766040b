/**
 * New view from a query (admin): choose a connector and paste the load query; the service reads a
 * sample (POST /dataviews/draft-from-query), shows the first rows, suggests the date, value and count
 * columns, the categories and their parent links, counts the series and drafts the definition. The
 * draft is YAML in the schema-aware editor, checked as it is edited; saving creates the view, deploys it
 * and (unless unticked) enables it, then opens its page, where the first load is one click.
 */
import { type FormEvent, useRef, useState } from 'react';
import { Field, errorsFor, Loading, PageHeader, Problem } from '../components/ui';
import { YamlEditor } from '../components/yaml-editor';
import { api } from '../lib/api';
import { choicesOf, type DraftChoices, type DraftFromQuery } from '../lib/draft-from-query';
import { Link, navigate } from '../lib/router';
import type { Connector, DataViewDoc } from '../lib/types';
import { useDefinitionCheck } from '../lib/use-definition-check';
import { useLoad } from '../lib/use-load';
import { definitionYaml } from '../lib/yaml-doc';
import { DraftChoicesCard, SampleRows } from './draft-choices';

const CHECK_TEXT = {
  idle: '',
  checking: 'Checking…',
  valid: 'The definition is valid.',
  invalid: '',
} as const;

interface QueryForm {
  connector: string;
  name: string;
  domain: string;
  query: string;
}

export function DataViewFromQueryPage() {
  const connectors = useLoad(() => api<Connector[]>('GET', '/connectors'), []);
  const schema = useLoad(() => api<object>('GET', '/dataviews/definition-schema'), []);
  const [form, setForm] = useState<QueryForm>({ connector: '', name: '', domain: '', query: '' });
  const [draft, setDraft] = useState<DraftFromQuery | null>(null);
  const [choices, setChoices] = useState<DraftChoices>({});
  const [text, setText] = useState<string | null>(null);
  const [enable, setEnable] = useState(true);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<'draft' | 'save' | null>(null);
  /** A view created by a save whose deploy or enable then failed: its page is where to go on. */
  const [created, setCreated] = useState<number | null>(null);
  const seq = useRef(0);
  const check = useDefinitionCheck(text, created);

  const connector = form.connector || connectors.data?.[0]?.name || '';

  /** Asks for a draft of the query with `picked` (none: all suggested); stale answers are dropped. */
  const requestDraft = async (picked: DraftChoices) => {
    const mine = ++seq.current;
    setBusy('draft');
    setError(null);
    try {
      const body = { connector, query: form.query, name: form.name, domain: form.domain, ...picked };
      const answer = await api<DraftFromQuery>('POST', '/dataviews/draft-from-query', body);
      if (mine !== seq.current) return;
      setDraft(answer);
      setChoices(Object.keys(picked).length ? picked : choicesOf(answer));
      setText(answer.definition ? definitionYaml(answer.definition) : null);
    } catch (e) {
      if (mine === seq.current) setError(e);
    } finally {
      if (mine === seq.current) setBusy(null);
    }
  };

  const preview = (e: FormEvent) => {
    e.preventDefault();
    void requestDraft({});
  };

  const save = async () => {
    if (text === null) return;
    setBusy('save');
    setError(null);
    let id = created;
    try {
      if (id === null) {
        id = (await api<DataViewDoc>('POST', '/dataviews', text, { yaml: true })).id;
        setCreated(id);
      } else {
        // Saved before, its deploy refused: the edited text replaces what was saved.
        await api('PUT', `/dataviews/${id}`, text, { yaml: true });
      }
      await api('POST', `/dataviews/${id}/deploy`);
      if (enable) await api('POST', `/dataviews/${id}/enable`);
      navigate(`/dataviews/${id}`);
    } catch (e) {
      setError(e);
      check.report(e);
      setBusy(null);
    }
  };

  const set = (patch: Partial<QueryForm>) => setForm((f) => ({ ...f, ...patch }));
  if (connectors.error) return <Problem error={connectors.error} />;
  if (!connectors.data) return <Loading />;

  return (
    <div>
      <PageHeader title="New view from a query">
        <Link className="button" to="/dataviews/new">
          Write the definition instead
        </Link>
      </PageHeader>
      <section className="card" aria-labelledby="query-title">
        <h2 id="query-title">Load query</h2>
        {connectors.data.length === 0 && (
          <p className="info">
            No connector yet: <Link to="/connectors">add one</Link> for the database the query reads.
          </p>
        )}
        <form onSubmit={preview}>
          <div className="row">
            <Field label="Connector" errors={errorsFor(error, 'connector')}>
              {(f) => (
                <select id={f.id} value={connector} onChange={(e) => set({ connector: e.target.value })}>
                  {connectors.data?.map((c) => (
                    <option key={c.name} value={c.name}>
                      {c.name} ({c.type})
                    </option>
                  ))}
                </select>
              )}
            </Field>
            <Field label="Name" hint="lower case, digits and _" errors={errorsFor(error, 'name')}>
              {(f) => (
                <input
                  id={f.id}
                  aria-describedby={f.describedBy}
                  placeholder="new_view"
                  value={form.name}
                  onChange={(e) => set({ name: e.target.value })}
                />
              )}
            </Field>
            <Field label="Domain" errors={errorsFor(error, 'domain')}>
              {(f) => (
                <input
                  id={f.id}
                  placeholder="default"
                  value={form.domain}
                  onChange={(e) => set({ domain: e.target.value })}
                />
              )}
            </Field>
          </div>
          <Field
            label="Query"
            errors={errorsFor(error, 'query')}
            hint="One row per day and combination of categories: a date (DATE, TIMESTAMP, ISO text or an integer YYYYMMDD), the categories, a value and optionally a count."
          >
            {(f) => (
              <textarea
                id={f.id}
                className="mono"
                rows={6}
                aria-describedby={f.describedBy}
                value={form.query}
                onChange={(e) => set({ query: e.target.value })}
              />
            )}
          </Field>
          <div className="actions">
            <button
              type="submit"
              className="primary"
              disabled={busy !== null || !connector || !form.query.trim()}
            >
              {busy === 'draft' && !draft ? 'Reading the query…' : 'Preview rows'}
            </button>
            {busy === 'draft' && draft && <span className="muted">Drafting…</span>}
          </div>
        </form>
      </section>
      <Problem
        error={error}
        shown={['connector', 'name', 'domain', 'query', ...check.markers.map((m) => m.path)]}
      />
      {draft && (
        <>
          <SampleRows draft={draft} />
          <div className="split">
            <div className="editor-pane">
              {text === null ? (
                <p className="muted">
                  The definition is drafted once the date, value and categories are chosen.
                </p>
              ) : (
                <>
                  <YamlEditor
                    label="Definition (YAML, only what differs from the defaults)"
                    value={text}
                    onChange={setText}
                    markers={check.markers}
                    schema={schema.data}
                  />
                  <p className="muted" aria-live="polite">
                    {CHECK_TEXT[check.state]} Changing a column choice drafts the definition again.
                  </p>
                  <div className="actions">
                    <label className="inline">
                      <input type="checkbox" checked={enable} onChange={(e) => setEnable(e.target.checked)} />
                      Enable it (scheduled loads and detection)
                    </label>
                    <button
                      type="button"
                      className="primary"
                      disabled={busy !== null || check.state === 'invalid'}
                      onClick={save}
                    >
                      {busy === 'save' ? 'Saving…' : 'Save and deploy'}
                    </button>
                    {created !== null && <Link to={`/dataviews/${created}`}>Open the saved view</Link>}
                  </div>
                </>
              )}
            </div>
            <div className="side-pane">
              <DraftChoicesCard
                draft={draft}
                choices={choices}
                busy={busy === 'draft'}
                onChange={(next) => {
                  setChoices(next);
                  void requestDraft(next);
                }}
              />
            </div>
          </div>
        </>
      )}
    </div>
  );
}
