/**
 * A small category cube with one event, for the incident surfaces (contributions, incident detail, CLI):
 * region → city × channel, 140 days from 2024-01-01 with a weekly bump and Poisson-like noise, and
 * Milan's app orders missing for four days (2024-04-30 .. 2024-05-03).
 */
import { makeNormal, makeRng } from '../../scripts/synthetic/rng';
import type { SourceSeries } from './detection-fixture';

export const INCIDENT_DAYS = 140;
export const INCIDENT_CATEGORIES = [
  { name: 'region' },
  { name: 'city', parent: 'region' },
  { name: 'channel' },
];
const CITIES: Array<[string, string, number]> = [
  ['North', 'Oslo', 120],
  ['North', 'Bergen', 80],
  ['South', 'Rome', 150],
  ['South', 'Milan', 100],
];
export const GAP = {
  city: 'Milan',
  channel: 'app',
  from: 120,
  to: 123,
  dateFrom: '2024-04-30',
  dateTo: '2024-05-03',
};

export function incidentSeries(): SourceSeries[] {
  const normal = makeNormal(makeRng(5));
  const out: SourceSeries[] = [];
  for (const [region, city, size] of CITIES)
    for (const [channel, share] of [
      ['web', 0.6],
      ['app', 0.4],
    ] as const) {
      const values = Array.from({ length: INCIDENT_DAYS }, (_, t) => {
        const mean = size * share * (t % 7 === 5 ? 1.2 : 1);
        if (city === GAP.city && channel === GAP.channel && t >= GAP.from && t <= GAP.to) return null;
        return Math.max(0, Math.round(mean + Math.sqrt(mean) * normal()));
      });
      out.push({ categories: { region, city, channel }, values });
    }
  return out;
}
