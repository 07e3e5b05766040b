/**
 * The spec's comment form: data view, validity window, text, and after "Load categories" a Use checkbox
 * and a value dropdown per dimension; only dimensions with Use checked are sent as constraints.
 */
import { type FormEvent, useState } from 'react';
import { ApiError, api } from '../lib/api';
import { dataViewLabel } from '../lib/dataviews';
import type { Category, Comment, DataViewDoc, DataViewLite } from '../lib/types';
import { Field, errorsFor, Problem } from './ui';

interface Props {
  /** The comment being edited, or the prefilled fields of a new one. */
  initial: Partial<Comment>;
  /** Choices for the data view; omitted when the data view is fixed by `initial.dataViewId`. */
  dataViews?: DataViewLite[];
  /** Dimensions to offer when the caller may not read the data view's categories (values of the anomaly). */
  fallbackCategories?: Record<string, string | null>;
  onSaved: (c: Comment) => void;
  onCancel?: () => void;
}

interface Dim {
  name: string;
  label: string;
  values: string[];
  use: boolean;
  value: string;
}

const MAX_TEXT = 2000;

/**
 * The dimensions with their values. Values come from GET /dataviews/{id}/categories, which is for
 * administrators; a data user gets the anomaly's own values, or the definition's categories to type into.
 */
/** What the form needs of a category: its values to choose from. */
type Dimension = Pick<Category, 'name' | 'label' | 'values'>;

async function loadDimensions(id: number, fallback?: Record<string, string | null>): Promise<Dimension[]> {
  try {
    return await api<Category[]>('GET', `/dataviews/${id}/categories`);
  } catch (e) {
    if (!(e instanceof ApiError) || e.status !== 403) throw e;
    const doc = await api<DataViewDoc>('GET', `/dataviews/${id}`);
    return doc.categories.map((c) => {
      const v = fallback?.[c.name];
      return { name: c.name, label: c.label, values: v ? [v] : [] };
    });
  }
}

export function CommentForm({ initial, dataViews, fallbackCategories, onSaved, onCancel }: Props) {
  const [dataViewId, setDataViewId] = useState<number | ''>(initial.dataViewId ?? '');
  const [dateFrom, setDateFrom] = useState(initial.dateFrom ?? '');
  const [dateTo, setDateTo] = useState(initial.dateTo ?? '');
  const [text, setText] = useState(initial.text ?? '');
  const [dims, setDims] = useState<Dim[] | null>(null);
  const [loadingCats, setLoadingCats] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const preset = initial.categories ?? {};

  const loadCategories = async () => {
    if (dataViewId === '') return;
    setLoadingCats(true);
    setError(null);
    let cats: Dimension[];
    try {
      cats = await loadDimensions(Number(dataViewId), fallbackCategories);
    } catch (e) {
      setError(e);
      setLoadingCats(false);
      return;
    }
    setDims(
      cats.map((c) => {
        const want = preset[c.name] ?? fallbackCategories?.[c.name] ?? null;
        const values = want && !c.values.includes(want) ? [want, ...c.values] : c.values;
        return {
          name: c.name,
          label: c.label || c.name,
          values,
          use: Boolean(preset[c.name]),
          value: want ?? values[0] ?? '',
        };
      }),
    );
    setLoadingCats(false);
  };

  const setDim = (i: number, patch: Partial<Dim>) =>
    setDims((d) => d?.map((x, j) => (j === i ? { ...x, ...patch } : x)) ?? null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    // From entries: a category named `__proto__` is a key like any other.
    const categories: Record<string, string> = Object.fromEntries(
      dims
        ? dims.filter((d) => d.use && d.value).map((d) => [d.name, d.value])
        : // Categories not (re)loaded: an edited comment keeps its constraints.
          Object.entries(preset).filter((e): e is [string, string] => !!e[1]),
    );
    const body = { text, dataViewId: Number(dataViewId), dateFrom, dateTo, categories };
    try {
      const saved = initial.id
        ? await api<Comment>('PUT', `/comments/ui/${initial.id}`, { id: initial.id, ...body })
        : await api<Comment>('POST', '/comments/ui', body);
      onSaved(saved);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="comment-form" onSubmit={submit} aria-label={initial.id ? 'Edit comment' : 'Add comment'}>
      <div className="row">
        {dataViews ? (
          <Field label="Data view" errors={errorsFor(error, 'dataViewId')}>
            {(f) => (
              <select
                id={f.id}
                required
                value={dataViewId}
                onChange={(e) => {
                  setDataViewId(e.target.value ? Number(e.target.value) : '');
                  setDims(null);
                }}
              >
                <option value="">Choose…</option>
                {dataViews.map((v) => (
                  <option key={v.id} value={v.id}>
                    {dataViewLabel(v)}
                  </option>
                ))}
              </select>
            )}
          </Field>
        ) : null}
        <Field label="Valid from" errors={errorsFor(error, 'dateFrom')}>
          {(f) => (
            <input
              id={f.id}
              type="date"
              required
              value={dateFrom}
              onChange={(e) => setDateFrom(e.target.value)}
            />
          )}
        </Field>
        <Field label="Valid to" errors={errorsFor(error, 'dateTo')}>
          {(f) => (
            <input
              id={f.id}
              type="date"
              required
              value={dateTo}
              onChange={(e) => setDateTo(e.target.value)}
            />
          )}
        </Field>
      </div>
      <fieldset className="dims">
        <legend>Categories</legend>
        <button type="button" onClick={loadCategories} disabled={dataViewId === '' || loadingCats}>
          {loadingCats ? 'Loading…' : 'Load categories'}
        </button>
        {!dims && Object.keys(preset).length > 0 && (
          <p className="muted">
            Constraints kept:{' '}
            {Object.entries(preset)
              .map(([k, v]) => `${k}=${v ?? 'all'}`)
              .join(', ')}
          </p>
        )}
        {dims?.length === 0 && <p className="muted">This data view has no categories.</p>}
        {dims?.map((d, i) => (
          <div className="dim" key={d.name}>
            <label>
              <input type="checkbox" checked={d.use} onChange={(e) => setDim(i, { use: e.target.checked })} />{' '}
              Use {d.label}
            </label>
            {d.values.length > 0 ? (
              <select
                aria-label={`${d.label} value`}
                value={d.value}
                disabled={!d.use}
                onChange={(e) => setDim(i, { value: e.target.value })}
              >
                {d.values.map((v) => (
                  <option key={v} value={v}>
                    {v}
                  </option>
                ))}
              </select>
            ) : (
              <input
                aria-label={`${d.label} value`}
                value={d.value}
                disabled={!d.use}
                onChange={(e) => setDim(i, { value: e.target.value })}
              />
            )}
          </div>
        ))}
        {errorsFor(error, 'categories', true).length > 0 && (
          <div className="field-error">{errorsFor(error, 'categories', true).join('; ')}</div>
        )}
      </fieldset>
      <Field label="Comment" errors={errorsFor(error, 'text')} hint={`${text.length} / ${MAX_TEXT}`}>
        {(f) => (
          <textarea
            id={f.id}
            aria-describedby={f.describedBy}
            aria-invalid={f.invalid}
            required
            maxLength={MAX_TEXT}
            rows={3}
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        )}
      </Field>
      <Problem error={error} shown={['text', 'dateFrom', 'dateTo', 'dataViewId', 'categories']} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy || !text.trim()}>
          {busy ? 'Saving…' : 'Save comment'}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
