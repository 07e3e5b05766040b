/** A filter's AI summary on Home, with a refresh that regenerates it now (a failure keeps the previous text). */
import { useState } from 'react';
import { api } from '../lib/api';
import { when } from '../lib/format';
import type { Filter } from '../lib/types';
import { Problem } from './ui';

interface Stored {
  text: string | null;
  generatedAt: string | null;
}

export function SummaryBox({ filter }: { filter: Filter }) {
  const [summary, setSummary] = useState<Stored | null>(filter.summary);
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
        <button type="button" className="link" disabled={busy} onClick={refresh}>
          {busy ? 'Generating…' : 'Refresh summary'}
        </button>
      </div>
      {summary?.text ? (
        <>
          <p className="summary-text">{summary.text}</p>
          <small className="muted">Generated {when(summary.generatedAt)}</small>
        </>
      ) : (
        <p className="muted">No summary has been generated yet.</p>
      )}
      <Problem error={error} />
    </div>
  );
}
