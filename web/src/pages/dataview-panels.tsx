/** Side panels of the data view page: cron Validate and the sample data preview. */
import { useState } from 'react';
import { Field, errorsFor, Problem } from '../components/ui';
import { api, isMissingEndpoint } from '../lib/api';
import type * as Api from '../lib/api-types.gen';

type CronAnswer = Api.CronPreview;

/** Next runs shown in the service time zone, which is where the schedule runs. */
function inZone(iso: string, timeZone: string | undefined): string {
  try {
    return new Intl.DateTimeFormat('sv-SE', { timeZone, dateStyle: 'short', timeStyle: 'medium' }).format(
      new Date(iso),
    );
  } catch {
    return iso;
  }
}

export function CronPanel({ initial }: { initial: string }) {
  const [expression, setExpression] = useState(initial);
  const [answer, setAnswer] = useState<CronAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [seen, setSeen] = useState(initial);
  if (initial !== seen) {
    // The definition's cron changed in the editor: follow it.
    setSeen(initial);
    setExpression(initial);
    setAnswer(null);
  }
  const validate = async () => {
    setError(null);
    setAnswer(null);
    try {
      setAnswer(await api<CronAnswer>('POST', '/cron/validate', { expression, count: 5 }));
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section className="card" aria-labelledby="cron-title">
      <h2 id="cron-title">Load schedule</h2>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          void validate();
        }}
      >
        <Field
          label="Cron expression"
          errors={errorsFor(error, 'expression')}
          hint="sec min hour day month weekday (five fields also work)"
        >
          {(f) => (
            <input
              id={f.id}
              className="mono"
              aria-describedby={f.describedBy}
              value={expression}
              onChange={(e) => setExpression(e.target.value)}
            />
          )}
        </Field>
        <button type="submit" disabled={!expression.trim()}>
          Validate
        </button>
      </form>
      <Problem error={error} shown={['expression']} />
      {answer && (
        <div aria-live="polite">
          <p className="ok">
            Valid
            {answer.normalized ? (
              <>
                {' '}
                (<code>{answer.normalized}</code>)
              </>
            ) : null}
            . Next runs
            {answer.timeZone ? ` (${answer.timeZone})` : ''}:
          </p>
          <ol className="next-runs">
            {answer.nextRuns.map((r) => (
              <li key={r}>
                <time dateTime={r}>{inZone(r, answer.timeZone)}</time>
              </li>
            ))}
          </ol>
        </div>
      )}
    </section>
  );
}

type Sample = Api.PreviewResult;

const cell = (v: unknown) =>
  v === null || v === undefined ? '∅' : typeof v === 'object' ? JSON.stringify(v) : String(v);

/** The first 10 rows of the load (or custom load) query, run through the connector. */
export function SamplePanel({ connector, queries }: { connector: string; queries: Array<[string, string]> }) {
  const [sample, setSample] = useState<{ title: string; data: Sample } | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const run = async (title: string, query: string) => {
    setBusy(true);
    setError(null);
    try {
      const body = { connector, query, limit: 10 };
      const data = await api<Sample>('POST', '/connectors/preview-query', body).catch((e) =>
        isMissingEndpoint(e) ? api<Sample>('POST', '/dataviews/preview-query', body) : Promise.reject(e),
      );
      setSample({ title, data });
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const rows = (sample?.data.rows ?? []).slice(0, 10).map((r) => sample!.data.columns.map((c) => r[c.name]));
  return (
    <section className="card" aria-labelledby="sample-title" aria-busy={busy}>
      <h2 id="sample-title">Sample data</h2>
      <div className="actions">
        {queries.map(([title, q]) => (
          <button
            key={title}
            type="button"
            disabled={busy || !connector || !q.trim()}
            onClick={() => run(title, q)}
          >
            Preview {title}
          </button>
        ))}
      </div>
      <Problem error={error} />
      {sample && (
        <div className="table-wrap">
          <table className="results">
            <caption>
              First {rows.length} rows of the {sample.title}
            </caption>
            <thead>
              <tr>
                {sample.data.columns.map((c) => (
                  <th scope="col" key={c.name} title={c.type}>
                    {c.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: sample rows have no identity
                <tr key={i}>
                  {r.map((v, j) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional
                    <td key={j}>{cell(v)}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
