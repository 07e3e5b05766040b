/**
 * One filter: the editor with a live preview run of the unsaved settings; the owner saves, shares, pins
 * and deletes; a recipient changes settings for a preview only (spec, filter rule 5).
 */
import { useEffect, useRef, useState } from 'react';
import { FILTER_FORM_PATHS, FilterForm } from '../components/filter-form';
import { AggregateTable, AnomalyTable, RunInfo } from '../components/results';
import { ConfirmButton, Loading, Notice, PageHeader, Problem } from '../components/ui';
import { api } from '../lib/api';
import { bodyOf, NEW_FILTER, settingsOf } from '../lib/filters';
import { navigate } from '../lib/router';
import type { DataViewLite, Filter, FilterRun, FilterSettings } from '../lib/types';
import { useLoad } from '../lib/use-load';
import { SharePanel } from './filter-share';
import { FilterAlerts } from './filter-alerts';

const PREVIEW_DELAY_MS = 500;

export function FilterEditPage({ id }: { id: number | null }) {
  const stored = useLoad(
    () => (id ? api<Filter>('GET', `/anomaly-filters/${id}`) : Promise.resolve(null)),
    [id],
  );
  const views = useLoad(() => api<DataViewLite[]>('GET', '/dataviews/lite'), []);
  const [settings, setSettings] = useState<FilterSettings | null>(id ? null : { ...NEW_FILTER });
  const [saveError, setSaveError] = useState<unknown>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const filter = stored.data ?? null;

  useEffect(() => {
    if (filter) setSettings(settingsOf(filter));
  }, [filter]);

  const preview = usePreview(settings);
  const owner = !filter || filter.isOwner;
  const changed = filter && settings ? JSON.stringify(settingsOf(filter)) !== JSON.stringify(settings) : true;

  const save = async () => {
    if (!settings) return;
    setBusy(true);
    setSaveError(null);
    try {
      if (filter) {
        stored.setData(await api<Filter>('PUT', '/anomaly-filters', { ...bodyOf(settings), id: filter.id }));
        setNotice('Filter saved.');
      } else {
        const made = await api<Filter>('POST', '/anomaly-filters', bodyOf(settings));
        navigate(`/filters/${made.id}`, { replace: true });
      }
    } catch (e) {
      setSaveError(e);
    } finally {
      setBusy(false);
    }
  };

  const act = async (fn: () => Promise<unknown>, done: string) => {
    setSaveError(null);
    try {
      await fn();
      setNotice(done);
    } catch (e) {
      setSaveError(e);
    }
  };

  if (stored.error) return <Problem error={stored.error} />;
  if (!settings) return <Loading />;
  const fieldError = saveError ?? preview.error;

  return (
    <div>
      <PageHeader title={filter ? `Filter: ${filter.name}` : 'New filter'}>
        {owner ? (
          <button type="button" className="primary" disabled={busy || !settings.name.trim()} onClick={save}>
            {busy ? 'Saving…' : filter ? 'Save' : 'Create filter'}
          </button>
        ) : null}
        {filter && (
          <button
            type="button"
            onClick={() =>
              act(
                async () =>
                  stored.setData(
                    await api<Filter>('PUT', `/anomaly-filters/${filter.id}/pin`, { pinned: !filter.pinned }),
                  ),
                filter.pinned ? 'Unpinned.' : 'Pinned: it shows on Home.',
              )
            }
          >
            {filter.pinned ? 'Unpin' : 'Pin'}
          </button>
        )}
        {filter && !owner && changed && (
          <button type="button" onClick={() => setSettings(settingsOf(filter))}>
            Reset changes
          </button>
        )}
        {filter && owner && (
          <ConfirmButton
            label="Delete"
            question="Delete this filter for everyone?"
            onConfirm={() =>
              act(() => api('DELETE', `/anomaly-filters/${filter.id}`), 'Deleted.').then(() =>
                navigate('/filters'),
              )
            }
          />
        )}
      </PageHeader>
      {filter && !owner && (
        <p className="info">
          Shared with you by {filter.ownerEmail}. You can change the settings to preview the results; only the
          owner can save them.
        </p>
      )}
      <Notice text={notice} />
      <Problem error={saveError} shown={FILTER_FORM_PATHS} />
      <div className="split">
        <div className="editor-pane">
          <FilterForm
            value={settings}
            onChange={setSettings}
            error={fieldError}
            dataViews={views.data ?? []}
          />
          {filter && owner && <SharePanel filter={filter} onShared={(f) => stored.setData(f)} />}
          {filter && <FilterAlerts filterId={filter.id} />}
        </div>
        <section className="preview-pane" aria-labelledby="preview-title" aria-busy={preview.loading}>
          <h2 id="preview-title">Preview {preview.loading && <small className="muted">(running…)</small>}</h2>
          <Problem error={preview.error} shown={FILTER_FORM_PATHS} />
          {preview.run && (
            <>
              <RunInfo run={preview.run} />
              {preview.run.aggregates && <AggregateTable aggregates={preview.run.aggregates} />}
              <AnomalyTable anomalies={preview.run.anomalies} caption="Preview results" compact />
            </>
          )}
        </section>
      </div>
    </div>
  );
}

/** Runs the unsaved settings through POST /anomalies/query shortly after each change. */
function usePreview(settings: FilterSettings | null) {
  const [run, setRun] = useState<FilterRun | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(false);
  const abort = useRef<AbortController | null>(null);
  // An unnamed draft previews too: the query endpoint takes the name as optional.
  const key = settings
    ? JSON.stringify({ ...bodyOf(settings), name: settings.name.trim() || undefined })
    : '';
  useEffect(() => {
    if (!key) return;
    const t = window.setTimeout(async () => {
      abort.current?.abort();
      const ctl = new AbortController();
      abort.current = ctl;
      setLoading(true);
      try {
        const body = JSON.parse(key) as FilterSettings;
        const r = await api<FilterRun>('POST', '/anomalies/query', body, { signal: ctl.signal });
        setRun(r);
        setError(null);
      } catch (e) {
        if ((e as Error).name !== 'AbortError') setError(e);
      } finally {
        if (abort.current === ctl) setLoading(false);
      }
    }, PREVIEW_DELAY_MS);
    return () => window.clearTimeout(t);
  }, [key]);
  return { run, error, loading };
}
