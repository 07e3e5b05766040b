/** Settings (admin): the global language-model endpoint that AI summaries call; header values stay masked. */
import { type FormEvent, useEffect, useState } from 'react';
import { Field, errorsFor, Loading, Notice, PageHeader, Problem } from '../components/ui';
import { api } from '../lib/api';
import type * as Api from '../lib/api-types.gen';
import { when } from '../lib/format';
import { useLoad } from '../lib/use-load';

type SettingsView = Api.SummarizationSettingsView;

const PATH = '/settings/summarization';

/** `Name: value` lines ↔ a header object; a masked value sent back unchanged keeps the stored one. */
const headersText = (h: Record<string, string> = {}) =>
  Object.entries(h)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n');
function parseHeaders(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf(':');
    if (i > 0) out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
  }
  return out;
}

export function SettingsPage() {
  const stored = useLoad(() => api<SettingsView>('GET', PATH), []);
  const [url, setUrl] = useState('');
  const [headers, setHeaders] = useState('');
  const [bodyTemplate, setBodyTemplate] = useState('');
  const [responsePath, setResponsePath] = useState('');
  const [timeoutMs, setTimeoutMs] = useState(60000);
  const [error, setError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const s = stored.data;
    if (!s) return;
    if (s.configured) {
      setUrl(s.url);
      setHeaders(headersText(s.headers));
      setTimeoutMs(s.timeoutMs);
    }
    setBodyTemplate(s.bodyTemplate);
    setResponsePath(s.responsePath);
  }, [stored.data]);

  const run = async (what: () => Promise<string>) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    try {
      setNotice(await what());
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const save = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const body = { url, headers: parseHeaders(headers), bodyTemplate, responsePath, timeoutMs };
      stored.setData(await api<SettingsView>('PUT', PATH, body));
      return 'Settings saved.';
    });
  };
  const test = () =>
    run(async () => {
      const r = await api<Api.SummarizationTestResult>('POST', `${PATH}/test`);
      return `The endpoint answered: ${r.text}`;
    });

  if (stored.loading && !stored.data) return <Loading />;
  return (
    <div>
      <PageHeader title="Settings" />
      <Problem error={stored.error} />
      <form className="card" onSubmit={save} aria-labelledby="llm-title">
        <h2 id="llm-title">AI summaries: language-model endpoint</h2>
        <p className="muted">
          {stored.data?.configured
            ? `Configured, last changed ${when(stored.data.updatedAt)}.`
            : 'Not configured yet.'}{' '}
          Each filter brings its own instructions; the body template receives them as {'{{instructions}}'} and
          the anomalies as {'{{prompt}}'}.
        </p>
        <Field label="URL" errors={errorsFor(error, 'url')}>
          {(f) => (
            <input id={f.id} type="url" required value={url} onChange={(e) => setUrl(e.target.value)} />
          )}
        </Field>
        <Field
          label="Headers"
          errors={errorsFor(error, 'headers', true)}
          hint="One Name: value per line; masked values are kept"
        >
          {(f) => (
            <textarea
              id={f.id}
              aria-describedby={f.describedBy}
              className="mono"
              rows={3}
              value={headers}
              onChange={(e) => setHeaders(e.target.value)}
            />
          )}
        </Field>
        <Field label="Body template (JSON)" errors={errorsFor(error, 'bodyTemplate')}>
          {(f) => (
            <textarea
              id={f.id}
              className="mono"
              rows={6}
              required
              value={bodyTemplate}
              onChange={(e) => setBodyTemplate(e.target.value)}
            />
          )}
        </Field>
        <div className="row">
          <Field
            label="Response path"
            className="grow"
            errors={errorsFor(error, 'responsePath')}
            hint="Where the text is in the answer"
          >
            {(f) => (
              <input
                id={f.id}
                aria-describedby={f.describedBy}
                className="mono"
                required
                value={responsePath}
                onChange={(e) => setResponsePath(e.target.value)}
              />
            )}
          </Field>
          <Field label="Timeout (ms)" errors={errorsFor(error, 'timeoutMs')}>
            {(f) => (
              <input
                id={f.id}
                type="number"
                min={1000}
                value={timeoutMs}
                onChange={(e) => setTimeoutMs(Number(e.target.value))}
              />
            )}
          </Field>
        </div>
        <Problem error={error} shown={['url', 'headers', 'bodyTemplate', 'responsePath', 'timeoutMs']} />
        <Notice text={notice} />
        <div className="actions">
          <button type="submit" className="primary" disabled={busy}>
            Save settings
          </button>
          <button type="button" disabled={busy || !stored.data?.configured} onClick={test}>
            Test the endpoint
          </button>
        </div>
      </form>
    </div>
  );
}
