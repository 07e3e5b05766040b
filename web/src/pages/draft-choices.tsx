/**
 * The middle of "New view from a query": the query's first rows, the date, value and count columns and
 * the categories picked from its columns, and what the sample supports (parent links, series, history,
 * detectors). Every change asks the service for a new draft.
 */
import { Field } from '../components/ui';
import {
  categoryColumns,
  type DraftChoices,
  type DraftFromQuery,
  dateColumns,
  dateNotes,
  dayText,
  draftDetectors,
  measureColumns,
  parentChains,
} from '../lib/draft-from-query';

const cell = (v: unknown) =>
  v === null || v === undefined ? '∅' : typeof v === 'object' ? JSON.stringify(v) : String(v);

export function SampleRows({ draft }: { draft: DraftFromQuery }) {
  const names = draft.columns.map((c) => c.name);
  return (
    <div className="table-wrap">
      <table className="results">
        <caption>
          First {draft.rows.length} rows of the query ({draft.complete ? 'all' : 'the first'}{' '}
          {draft.sampled.toLocaleString('en')} rows read)
        </caption>
        <thead>
          <tr>
            {draft.columns.map((c) => (
              <th
                scope="col"
                key={c.name}
                title={`${c.kind}, ${c.distinct} distinct values${c.note ? `. ${c.note}` : ''}`}
              >
                {c.name} <small className="muted">{c.kind}</small>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {draft.rows.map((r, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: sample rows have no identity
            <tr key={i}>
              {names.map((n) => (
                <td key={n}>{cell(r[n])}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ColumnSelect({
  label,
  value,
  options,
  none,
  onChange,
}: {
  label: string;
  value: string | null | undefined;
  options: string[];
  /** The text of "no column" when the column may be left out. */
  none?: string;
  onChange: (v: string | null) => void;
}) {
  return (
    <Field label={label}>
      {(f) => (
        <select id={f.id} value={value ?? ''} onChange={(e) => onChange(e.target.value || null)}>
          {(none || !value) && <option value="">{none ?? '(choose)'}</option>}
          {options.map((o) => (
            <option key={o}>{o}</option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function DraftChoicesCard({
  draft,
  choices,
  onChange,
  busy,
}: {
  draft: DraftFromQuery;
  choices: DraftChoices;
  onChange: (next: DraftChoices) => void;
  busy: boolean;
}) {
  const picked = new Set(choices.categories ?? []);
  const candidates = categoryColumns(draft.columns, choices);
  const set = (patch: DraftChoices) => {
    const next = { ...choices, ...patch };
    // A column taken as a measure is no longer a category.
    const taken = new Set([next.dateColumn, next.valueColumn, next.countColumn]);
    next.categories = (next.categories ?? []).filter((c) => !taken.has(c));
    onChange(next);
  };
  const toggle = (name: string, on: boolean) =>
    set({
      categories: candidates.filter((c) => (c === name ? on : picked.has(c))),
    });
  const chains = parentChains(draft.categories);
  const detectors = draftDetectors(draft.definition);
  return (
    <section className="card" aria-labelledby="choices-title" aria-busy={busy}>
      <h2 id="choices-title">Columns</h2>
      <div className="row">
        <ColumnSelect
          label="Date column"
          value={choices.dateColumn}
          options={dateColumns(draft.columns)}
          onChange={(v) => set({ dateColumn: v ?? undefined })}
        />
        <ColumnSelect
          label="Value column"
          value={choices.valueColumn}
          options={measureColumns(draft.columns).filter((c) => c !== choices.dateColumn)}
          onChange={(v) => set({ valueColumn: v ?? undefined })}
        />
        <ColumnSelect
          label="Count column"
          value={choices.countColumn}
          none="(no count)"
          options={measureColumns(draft.columns).filter(
            (c) => c !== choices.dateColumn && c !== choices.valueColumn,
          )}
          onChange={(v) => set({ countColumn: v })}
        />
      </div>
      {dateNotes(draft.columns).map((n) => (
        <p key={n.name} className="muted" role="note">
          {n.name} cannot be the date column: {n.note}
        </p>
      ))}
      <fieldset className="checks">
        <legend>Categories</legend>
        {candidates.map((c) => (
          <label key={c}>
            <input type="checkbox" checked={picked.has(c)} onChange={(e) => toggle(c, e.target.checked)} />
            {c}
          </label>
        ))}
      </fieldset>
      <h3>What the data supports</h3>
      <dl className="draft-facts" aria-label="What the data supports">
        <dt>History</dt>
        <dd>
          {draft.days.count} days
          {draft.days.first !== null ? `, ${dayText(draft.days.first)} to ${dayText(draft.days.last)}` : ''}
          {draft.complete ? '' : ' (in the rows read)'}
        </dd>
        <dt>Parent links</dt>
        <dd>
          {chains.length === 0 ? (
            'none: every category is independent of the others'
          ) : (
            <ul>
              {chains.map((chain) => (
                <li key={chain.join('>')}>{chain.join(' → ')}</li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Series</dt>
        <dd>
          {draft.seriesCount === null
            ? 'too many to count here'
            : `${draft.seriesCount.toLocaleString('en')}${draft.complete ? '' : ' or more'}`}
        </dd>
        <dt>Detectors</dt>
        <dd>{detectors.length ? detectors.join(', ') : '—'}</dd>
      </dl>
      {draft.missing.length > 0 && (
        <p className="problem" role="alert">
          A draft still needs {draft.missing.join(', ')}.
        </p>
      )}
    </section>
  );
}
