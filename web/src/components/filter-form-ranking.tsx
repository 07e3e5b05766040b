/** The filter editor's ordering, aggregation and AI summary settings. */
import { type NumKey, SORT_BY } from '../lib/filters';
import type { FilterSettings } from '../lib/types';
import { Field } from './ui';

interface Props {
  v: FilterSettings;
  set: <K extends keyof FilterSettings>(k: K, x: FilterSettings[K]) => void;
  num: (k: NumKey, raw: string, nullable?: boolean) => void;
  err: (path: string) => string[];
}

export function RankingFields({ v, set, num, err }: Props) {
  return (
    <>
      <fieldset>
        <legend>Ordering</legend>
        <div className="row">
          <Field label="Sort by" errors={err('sortBy')}>
            {(f) => (
              <select
                id={f.id}
                value={v.sortBy}
                onChange={(e) => set('sortBy', e.target.value as FilterSettings['sortBy'])}
              >
                {SORT_BY.map((s) => (
                  <option key={s}>{s}</option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Top N" errors={err('limit')}>
            {(f) => (
              <input
                id={f.id}
                type="number"
                min={1}
                value={v.limit}
                onChange={(e) => num('limit', e.target.value, false)}
              />
            )}
          </Field>
          <label className="inline">
            <input
              type="checkbox"
              checked={v.splitByType}
              onChange={(e) => set('splitByType', e.target.checked)}
            />{' '}
            Split by type
          </label>
          <label className="inline">
            <input
              type="checkbox"
              checked={v.mergeEvents ?? false}
              onChange={(e) => set('mergeEvents', e.target.checked)}
            />{' '}
            One row per event (types of one series and measure on overlapping days together)
          </label>
          <label className="inline">
            <input
              type="checkbox"
              checked={v.incidents ?? false}
              onChange={(e) => set('incidents', e.target.checked)}
            />{' '}
            One row per incident, named by its root cause (the records of one real event together)
          </label>
          <label className="inline">
            <input
              type="checkbox"
              checked={v.hideDismissed ?? false}
              onChange={(e) => set('hideDismissed', e.target.checked)}
            />{' '}
            Hide anomalies marked expected or not an anomaly
          </label>
          <label className="inline">
            <input
              type="checkbox"
              checked={v.hideWelcome ?? true}
              onChange={(e) => set('hideWelcome', e.target.checked)}
            />{' '}
            Hide welcome moves (good news for a measure whose bad direction the data view names)
          </label>
        </div>
      </fieldset>

      <fieldset>
        <legend>Aggregation</legend>
        <label className="inline">
          <input
            type="checkbox"
            checked={v.isAggregated}
            onChange={(e) => set('isAggregated', e.target.checked)}
          />{' '}
          Aggregate anomalies
        </label>
        <div className="row">
          <Field label="Aggregation mode" errors={err('aggregationMode')}>
            {(f) => (
              <select
                id={f.id}
                value={v.aggregationMode}
                onChange={(e) => set('aggregationMode', e.target.value as FilterSettings['aggregationMode'])}
              >
                <option>Hierarchical</option>
                <option>Graph</option>
              </select>
            )}
          </Field>
          <Field label="Min common categories" errors={err('minCommonCategories')}>
            {(f) => (
              <input
                id={f.id}
                type="number"
                min={1}
                value={v.minCommonCategories}
                onChange={(e) => num('minCommonCategories', e.target.value, false)}
              />
            )}
          </Field>
          <Field label="Graph threshold" errors={err('graphThreshold')}>
            {(f) => (
              <input
                id={f.id}
                type="number"
                min={0}
                max={1}
                step={0.05}
                value={v.graphThreshold}
                onChange={(e) => num('graphThreshold', e.target.value, false)}
              />
            )}
          </Field>
        </div>
        <Field label="Graph weights" errors={err('graphWeights')} hint="Category=weight pairs separated by ;">
          {(f) => (
            <input
              id={f.id}
              aria-describedby={f.describedBy}
              value={v.graphWeights}
              onChange={(e) => set('graphWeights', e.target.value)}
            />
          )}
        </Field>
      </fieldset>

      <fieldset>
        <legend>AI summary</legend>
        <label className="inline">
          <input
            type="checkbox"
            checked={v.isSummarized}
            onChange={(e) => set('isSummarized', e.target.checked)}
          />{' '}
          Summarise with AI
        </label>
        <Field label="Instructions" errors={err('instructions')} hint="Audience, structure, length, language">
          {(f) => (
            <textarea
              id={f.id}
              aria-describedby={f.describedBy}
              rows={3}
              value={v.instructions}
              onChange={(e) => set('instructions', e.target.value)}
            />
          )}
        </Field>
      </fieldset>
    </>
  );
}
