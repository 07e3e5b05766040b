/**
 * "What drove this change?" in the explorer: for the series shown and a window people choose (the picked
 * anomaly's by default, else the last seven days of the series), the contributions of its parts.
 */
import { useEffect, useState } from 'react';
import { addDays } from '../../lib/format';
import { ContributionsPanel } from '../contributions';
import type { SeriesAnswer } from './model';

export function ExplorerDrivers({
  data,
  window,
}: {
  data: SeriesAnswer;
  /** The picked anomaly's window, when one is picked. */
  window: { from: string; to: string } | null;
}) {
  const last = data.points.length ? data.points[data.points.length - 1].date : null;
  const initial = window ?? (last ? { from: addDays(last, -6), to: last } : null);
  const [range, setRange] = useState(initial);
  // A newly picked anomaly (or another series) sets the window again.
  const key = `${data.seriesId}|${data.measure}|${initial?.from}|${initial?.to}`;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key holds what resets the window
  useEffect(() => setRange(initial), [key]);
  if (!range) return null;
  return (
    <div className="explorer-drivers">
      <div className="field-row">
        <label className="field inline">
          From{' '}
          <input
            type="date"
            value={range.from}
            max={range.to}
            onChange={(e) => e.target.value && setRange({ ...range, from: e.target.value })}
          />
        </label>
        <label className="field inline">
          to{' '}
          <input
            type="date"
            value={range.to}
            min={range.from}
            onChange={(e) => e.target.value && setRange({ ...range, to: e.target.value })}
          />
        </label>
      </div>
      <ContributionsPanel
        heading="h3"
        query={{
          dataViewId: data.dataViewId,
          categories: data.categories,
          from: range.from,
          to: range.to,
          // A ratio's drivers: each value's rate and mix effects (docs/incidents.md).
          measure: data.measure === 'count' || data.measure === 'ratio' ? data.measure : 'value',
        }}
      />
    </div>
  );
}
