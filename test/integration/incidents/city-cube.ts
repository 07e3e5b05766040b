/**
 * The small cube both incident tests run on: region → city × channel leaves with weekly seasonality and
 * Poisson-like noise over 140 days, and the harness that runs a detection cycle and builds its incidents.
 */
import type { Container } from '../../../lib/app/container';
import { loadConfig } from '../../../lib/config/config';
import { schemaNameFor } from '../../../lib/dataset/ddl';
import { buildIncidents } from '../../../lib/incidents/step';
import { runDetection } from '../../../lib/process-job/start';
import { makeNormal, makeRng } from '../../../scripts/synthetic/rng';
import type { TestDatabase } from '../../support/db';
import type { SourceSeries } from '../../support/detection-fixture';

export const DAYS = 140;
export const CATEGORIES = [{ name: 'region' }, { name: 'city', parent: 'region' }, { name: 'channel' }];
const CITIES: Array<[string, string, number]> = [
  ['North', 'Oslo', 120],
  ['North', 'Bergen', 80],
  ['South', 'Rome', 150],
  ['South', 'Milan', 100],
];

/**
 * The leaves' daily counts; `change` gives a leaf's day a factor (1 = as usual) or null (no row that day).
 * With `money`, each leaf's value is its count × 40 plus noise and the count is the count measure;
 * otherwise the count is the value.
 */
export function cityCube(
  seed: number,
  change: (city: string, channel: string, day: number) => number | null,
  money = false,
): SourceSeries[] {
  const normal = makeNormal(makeRng(seed));
  const out: SourceSeries[] = [];
  for (const [region, city, size] of CITIES)
    for (const [channel, share] of [
      ['web', 0.6],
      ['app', 0.4],
    ] as const) {
      const counts = Array.from({ length: DAYS }, (_, t) => {
        const factor = change(city, channel, t);
        if (factor === null) return null;
        const mean = size * share * (t % 7 === 5 ? 1.2 : 1) * factor;
        return Math.max(0, Math.round(mean + Math.sqrt(mean) * normal()));
      });
      const categories = { region, city, channel };
      out.push(
        money
          ? {
              categories,
              values: counts.map((c) => (c ?? 0) * 40 + Math.round(normal() * 20)),
              counts: counts.map((c) => c ?? 0),
            }
          : { categories, values: counts },
      );
    }
  return out;
}

/** Runs detection then the incident step of the view, as the process job does after each cycle. */
export function incidentCycle(t: () => TestDatabase, viewId: () => number) {
  const container = () =>
    ({ db: t().db, config: loadConfig({ LOG_LEVEL: 'silent' }) }) as unknown as Container;
  const view = () => ({
    id: viewId(),
    source: { schema: schemaNameFor(viewId()), fill: 'zero' as const },
    categories: CATEGORIES,
  });
  return {
    detect: (job: number) => runDetection(container(), viewId(), job),
    incidents: (job: number) => buildIncidents({ db: t().db }, view(), job),
  };
}
