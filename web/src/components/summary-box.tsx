/**
 * A filter's AI summary on Home, with a refresh that regenerates it now (a failure keeps the previous text).
 * Without a language model configured it says so, with the way to Settings, instead of offering a refresh that fails.
 */
import { type ReactNode, useState } from 'react';
import { INCIDENT_CITATION } from '../../../lib/summaries/citations';
import { api } from '../lib/api';
import type * as Api from '../lib/api-types.gen';
import { when } from '../lib/format';
import { Link } from '../lib/router';
import { isAdmin, useMe } from '../lib/session';
import type { Filter } from '../lib/types';
import { useLoad } from '../lib/use-load';
import { incidentHref } from './incident';
import { Problem } from './ui';

/** The summary's text with each incident citation (`[incident <view>:<id>]`) a link to that incident. */
export function citedText(text: string): ReactNode[] {
  const out: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(new RegExp(INCIDENT_CITATION.source, 'g'))) {
    const at = m.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    out.push(
      <Link key={at} to={incidentHref(Number(m[1]), Number(m[2]))} className="citation">
        {m[0]}
      </Link>,
    );
    last = at + m[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/** A stored summary as GET …/summarization answers it (schemas/responses/summaries.schema.json). */
type Stored = Pick<Api.StoredSummary, 'text' | 'generatedAt'>;

function NoModel() {
  const me = useMe();
  return (
    <p className="muted no-model">
      No language model is configured, so no summary is generated.{' '}
      {isAdmin(me) ? (
        <>
          Set one up under <Link to="/settings">Settings → AI summaries</Link>.
        </>
      ) : (
        // Settings is an administrator's page: a data user is told whom to ask, not sent there.
        <>Ask an administrator to set one up (Settings → AI summaries).</>
      )}
    </p>
  );
}

export function SummaryBox({ filter }: { filter: Filter }) {
  const [summary, setSummary] = useState<Stored | null>(filter.summary);
  // Whether a model is configured: asked once (older services do not say; then a refresh is offered).
  const stored = useLoad(
    () => api<Api.StoredSummary>('GET', `/anomaly-filters/${filter.id}/summarization`),
    [filter.id],
  );
  const noModel = stored.data?.modelConfigured === false;
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const refresh = async () => {
    setBusy(true);
    setError(null);
    try {
      setSummary(await api<Stored>('POST', `/anomaly-filters/${filter.id}/summarization/refresh`, {}));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="summary" aria-live="polite" aria-busy={busy}>
      <div className="summary-head">
        <h3>AI summary</h3>
        {!noModel && (
          <button type="button" className="link" disabled={busy} onClick={refresh}>
            {busy ? 'Generating…' : 'Refresh summary'}
          </button>
        )}
      </div>
      {noModel && <NoModel />}
      {summary?.text ? (
        <>
          <p className="summary-text">{citedText(summary.text)}</p>
          <small className="muted">Generated {when(summary.generatedAt)}</small>
        </>
      ) : noModel ? null : (
        <p className="muted">No summary has been generated yet.</p>
      )}
      <Problem error={error} />
    </div>
  );
}
