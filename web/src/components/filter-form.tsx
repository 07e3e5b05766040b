/** The filter editor: every field of the API and every UI setting, errors next to their field. */
import { dataViewLabel } from '../lib/dataviews';
import { ANOMALY_TYPES, type NumKey, splitList, TIME_RANGES } from '../lib/filters';
import type { DataViewLite, FilterSettings } from '../lib/types';
import { RankingFields } from './filter-form-ranking';
import { Field, errorsFor } from './ui';

interface Props {
  value: FilterSettings;
  onChange: (next: FilterSettings) => void;
  error: unknown;
  dataViews: DataViewLite[];
}

const BOUNDS: Array<[string, NumKey, NumKey]> = [
  ['Recurrence', 'recurrenceFrom', 'recurrenceTo'],
  ['Change %', 'changePctFrom', 'changePctTo'],
  ['Change', 'changeFrom', 'changeTo'],
  ['Share %', 'sharePctFrom', 'sharePctTo'],
];

export function FilterForm({ value: v, onChange, error, dataViews }: Props) {
  const set = <K extends keyof FilterSettings>(k: K, x: FilterSettings[K]) => onChange({ ...v, [k]: x });
  const num = (k: NumKey, raw: string, nullable = true) =>
    set(k, (raw === '' ? (nullable ? null : 0) : Number(raw)) as never);
  const err = (path: string) => errorsFor(error, path);
  const views = splitList(v.dataViews);
  const types = splitList(v.anomalyTypes);
  const knownTypes = new Set(ANOMALY_TYPES.map((t) => t.toLowerCase()));
  const otherTypes = types.filter((t) => !knownTypes.has(t.toLowerCase()));
  const results = splitList(v.anomalyResult);
  const measures = splitList(v.measures ?? '').map((m) => m.toLowerCase());
  const toggle = (list: string[], item: string, on: boolean) =>
    on ? [...list, item] : list.filter((x) => x !== item);

  return (
    <div className="filter-form">
      <fieldset>
        <legend>Filter</legend>
        <Field label="Name" errors={err('name')}>
          {(f) => <input id={f.id} required value={v.name} onChange={(e) => set('name', e.target.value)} />}
        </Field>
        <Field label="Comment (header on Home)" errors={err('comment')}>
          {(f) => <input id={f.id} value={v.comment} onChange={(e) => set('comment', e.target.value)} />}
        </Field>
      </fieldset>

      <fieldset>
        <legend>Selection</legend>
        <div className="row">
          <Field label="Time range" errors={err('timeRange')}>
            {(f) => (
              <select
                id={f.id}
                value={v.timeRange}
                onChange={(e) => set('timeRange', e.target.value as FilterSettings['timeRange'])}
              >
                {TIME_RANGES.map((t) => (
                  <option key={t}>{t}</option>
                ))}
              </select>
            )}
          </Field>
          {v.timeRange === 'Custom' && (
            <>
              <Field label="Custom from" errors={err('dateFrom')}>
                {(f) => (
                  <input
                    id={f.id}
                    type="date"
                    value={v.dateFrom ?? ''}
                    onChange={(e) => set('dateFrom', e.target.value || null)}
                  />
                )}
              </Field>
              <Field label="Custom to" errors={err('dateTo')}>
                {(f) => (
                  <input
                    id={f.id}
                    type="date"
                    value={v.dateTo ?? ''}
                    onChange={(e) => set('dateTo', e.target.value || null)}
                  />
                )}
              </Field>
            </>
          )}
        </div>
        <fieldset className="checks">
          <legend>Data views (none checked: all you can access)</legend>
          {dataViews.map((d) => {
            const label = dataViewLabel(d);
            return (
              <label key={d.id}>
                <input
                  type="checkbox"
                  checked={views.includes(label)}
                  onChange={(e) => set('dataViews', toggle(views, label, e.target.checked).join(';'))}
                />{' '}
                {label}
              </label>
            );
          })}
          {err('dataViews').length > 0 && <div className="field-error">{err('dataViews').join('; ')}</div>}
        </fieldset>
        <fieldset className="checks">
          <legend>Anomaly types (none checked: all)</legend>
          {ANOMALY_TYPES.map((t) => (
            <label key={t}>
              <input
                type="checkbox"
                checked={types.some((x) => x.toLowerCase() === t.toLowerCase())}
                onChange={(e) =>
                  set(
                    'anomalyTypes',
                    toggle(
                      types.filter((x) => x.toLowerCase() !== t.toLowerCase()),
                      t,
                      e.target.checked,
                    ).join(';'),
                  )
                }
              />{' '}
              {t}
            </label>
          ))}
          <Field label="Other type codes (separated by ;)" errors={err('anomalyTypes')}>
            {(f) => (
              <input
                id={f.id}
                value={otherTypes.join(';')}
                onChange={(e) =>
                  set(
                    'anomalyTypes',
                    [
                      ...types.filter((x) => knownTypes.has(x.toLowerCase())),
                      ...splitList(e.target.value),
                    ].join(';'),
                  )
                }
              />
            )}
          </Field>
        </fieldset>
        <fieldset className="checks">
          <legend>Result</legend>
          {['Positive', 'Negative'].map((r) => (
            <label key={r}>
              <input
                type="checkbox"
                checked={results.includes(r)}
                onChange={(e) => {
                  const next = toggle(results, r, e.target.checked);
                  set(
                    'anomalyResult',
                    (['Positive', 'Negative'].filter((x) => next.includes(x)).join(';') ||
                      'Positive;Negative') as FilterSettings['anomalyResult'],
                  );
                }}
              />{' '}
              {r}
            </label>
          ))}
        </fieldset>
        <fieldset className="checks">
          <legend>Measures</legend>
          {[
            ['value', 'Value'],
            ['count', 'Count'],
            ['ratio', 'Ratio'],
          ].map(([m, label]) => (
            <label key={m}>
              <input
                type="checkbox"
                checked={measures.length === 0 || measures.includes(m)}
                onChange={(e) => {
                  const current = measures.length === 0 ? ['value', 'count', 'ratio'] : measures;
                  const next = toggle(current, m, e.target.checked);
                  set(
                    'measures',
                    ['value', 'count', 'ratio'].filter((x) => next.includes(x)).join(';') ||
                      'value;count;ratio',
                  );
                }}
              />{' '}
              {label}
            </label>
          ))}
        </fieldset>
        <Field
          label="Categories filter"
          errors={err('categoriesFilter')}
          hint="Category=value pairs separated by ;, e.g. country=DE;channel=web"
        >
          {(f) => (
            <input
              id={f.id}
              aria-describedby={f.describedBy}
              value={v.categoriesFilter}
              onChange={(e) => set('categoriesFilter', e.target.value)}
            />
          )}
        </Field>
        <div className="bounds">
          {BOUNDS.map(([label, from, to]) => (
            <div className="row" key={label}>
              <Field label={`${label} from`} errors={err(from)}>
                {(f) => (
                  <input
                    id={f.id}
                    type="number"
                    step="any"
                    value={v[from] ?? ''}
                    onChange={(e) => num(from, e.target.value)}
                  />
                )}
              </Field>
              <Field label={`${label} to`} errors={err(to)}>
                {(f) => (
                  <input
                    id={f.id}
                    type="number"
                    step="any"
                    value={v[to] ?? ''}
                    onChange={(e) => num(to, e.target.value)}
                  />
                )}
              </Field>
            </div>
          ))}
        </div>
      </fieldset>

      <RankingFields v={v} set={set} num={num} err={err} />
    </div>
  );
}

/** Paths the form shows next to its fields (the rest go to the banner). */
export const FILTER_FORM_PATHS = [
  'name',
  'comment',
  'timeRange',
  'dateFrom',
  'dateTo',
  'dataViews',
  'anomalyTypes',
  'categoriesFilter',
  'measures',
  'sortBy',
  'limit',
  'aggregationMode',
  'minCommonCategories',
  'graphThreshold',
  'graphWeights',
  'instructions',
  ...BOUNDS.flatMap(([, a, b]) => [a, b]),
];
