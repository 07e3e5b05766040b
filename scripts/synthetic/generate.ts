/**
 * Labelled synthetic data views: a total, countries and their regions (region's parent is
 * country), with weekly seasonality, trend, a mild yearly cycle, holidays, month-end peaks and
 * multiplicative noise, plus injected anomalies whose ground truth is returned as labels.
 */
import { toEpochDay } from '../../lib/calendar/days';
import type { AnomalyType } from '../../lib/detection/types';
import { holidayEffects } from './holidays';
import {
  type InjectionKind,
  type Label,
  type SyntheticSeries,
  type SyntheticView,
  VALUE_TYPES,
} from './labels';
import { makeNormal, makeRng, randInt, uniform } from './rng';

export type { InjectionKind, Label, SyntheticSeries, SyntheticView } from './labels';
export { VALUE_TYPES } from './labels';

export interface GenerateOptions {
  start?: string;
  days?: number;
  countries?: number;
  regionsPerCountry?: number;
  /** Days between injections in one country. */
  slotDays?: number;
}

/** Monday-first weekly profile shared by the generators. */
export const WEEK_PROFILE = [1.0, 1.05, 1.05, 1.1, 1.2, 0.65, 0.45];

/** One data view with injected, labelled anomalies; the same seed gives the same view. */
export function generateView(seed: number, options: GenerateOptions = {}): SyntheticView {
  const rand = makeRng(seed);
  const normal = makeNormal(rand);
  const dayIndex0 = toEpochDay(options.start ?? '2022-01-01');
  const days = options.days ?? 1096;
  const nCountries = options.countries ?? 3;
  const nRegions = options.regionsPerCountry ?? 5;
  const slotDays = options.slotDays ?? 70;
  const { factor: holiday, config } = holidayEffects(dayIndex0, days);

  const series: SyntheticSeries[] = [{ id: 0, name: 'total', parentId: null, childIds: [] }];
  const regionsOf: number[][] = [];
  for (let c = 0; c < nCountries; c++) {
    const id = series.length;
    series.push({ id, name: `country ${c}`, parentId: 0, childIds: [] });
    series[0].childIds.push(id);
    regionsOf.push([]);
  }
  for (let c = 0; c < nCountries; c++) {
    for (let r = 0; r < nRegions; r++) {
      const id = series.length;
      series.push({ id, name: `country ${c} / region ${r}`, parentId: 1 + c, childIds: [] });
      series[1 + c].childIds.push(id);
      regionsOf[c].push(id);
    }
  }

  // Per-region base curve and the multiplicative injection factor.
  const level = new Float64Array(series.length);
  const factor: Float64Array[] = series.map(() => new Float64Array(days).fill(1));
  const present: Uint8Array[] = series.map(() => new Uint8Array(days).fill(1));
  const alive = series.map(() => ({ from: 0, to: days }));
  const labels: Label[] = [];
  const countryOf = (id: number) => series[id].parentId as number;
  const echo = (id: number, kind: InjectionKind, start: number, end: number) => {
    for (let p = series[id].parentId; p !== null; p = series[p].parentId) {
      // A missing child also lowers its parent's count of distinct values.
      const allow: AnomalyType[] =
        kind === 'gap' && p === series[id].parentId ? [...VALUE_TYPES, 'Cardinality'] : VALUE_TYPES;
      labels.push({ kind, seriesId: p, start, end, expect: [], allow, primary: false });
    }
    // Siblings keep their values but their share of the parent moves.
    const parent = series[id].parentId;
    if (parent === null) return;
    for (const sib of series[parent].childIds) {
      if (sib !== id)
        labels.push({ kind, seriesId: sib, start, end, expect: [], allow: ['Mix'], primary: false });
    }
  };

  for (let c = 0; c < nCountries; c++) {
    const countryLevel = uniform(rand, 300, 3000);
    for (const id of regionsOf[c]) level[id] = countryLevel * uniform(rand, 0.5, 1.5);
  }

  // One region appears and one disappears per view.
  const allRegions = regionsOf.flat();
  const appearing = allRegions[randInt(rand, 0, allRegions.length - 1)];
  let disappearing = appearing;
  while (disappearing === appearing) disappearing = allRegions[randInt(rand, 0, allRegions.length - 1)];
  const appearAt = randInt(rand, 250, 450);
  const disappearAt = days - randInt(rand, 120, 250);
  alive[appearing].from = appearAt;
  alive[disappearing].to = disappearAt;
  for (let t = 0; t < appearAt; t++) present[appearing][t] = 0;
  for (let t = disappearAt; t < days; t++) present[disappearing][t] = 0;
  labels.push({
    kind: 'appear',
    seriesId: countryOf(appearing),
    start: appearAt,
    end: appearAt + 6,
    expect: ['Cardinality'],
    allow: [...VALUE_TYPES, 'Cardinality'],
    primary: true,
  });
  labels.push({
    kind: 'appear',
    seriesId: 0,
    start: appearAt,
    end: appearAt + 6,
    expect: [],
    allow: VALUE_TYPES,
    primary: false,
  });
  for (const sib of series[countryOf(appearing)].childIds) {
    if (sib !== appearing)
      labels.push({
        kind: 'appear',
        seriesId: sib,
        start: appearAt,
        end: appearAt + 6,
        expect: [],
        allow: ['Mix'],
        primary: false,
      });
  }
  labels.push({
    kind: 'disappear',
    seriesId: disappearing,
    start: disappearAt,
    end: days - 1,
    expect: ['Gap'],
    allow: [...VALUE_TYPES, 'Gap'],
    primary: true,
  });
  labels.push({
    kind: 'disappear',
    seriesId: countryOf(disappearing),
    start: disappearAt,
    end: disappearAt + 6,
    expect: ['Cardinality'],
    allow: [...VALUE_TYPES, 'Cardinality'],
    primary: true,
  });
  labels.push({
    kind: 'disappear',
    seriesId: 0,
    start: disappearAt,
    end: disappearAt + 6,
    expect: [],
    allow: VALUE_TYPES,
    primary: false,
  });
  for (const sib of series[countryOf(disappearing)].childIds) {
    if (sib !== disappearing)
      labels.push({
        kind: 'disappear',
        seriesId: sib,
        start: disappearAt,
        end: disappearAt + 6,
        expect: [],
        allow: ['Mix'],
        primary: false,
      });
  }

  const calendarNear = (s: number) => {
    for (let t = Math.max(0, s - 1); t <= Math.min(days - 1, s + 8); t++) if (holiday[t] !== 1) return true;
    return false;
  };
  const aliveDuring = (id: number, a: number, b: number) => alive[id].from + 60 <= a && b < alive[id].to - 30;
  const pick = <T>(items: T[]) => items[randInt(rand, 0, items.length - 1)];
  const multiply = (id: number, a: number, b: number, f: number) => {
    const fx = factor[id];
    for (let t = a; t <= b && t < days; t++) fx[t] *= f;
  };

  for (let c = 0; c < nCountries; c++) {
    for (let slot = 120; slot + slotDays <= days - 20; slot += slotDays) {
      let s = slot + randInt(rand, 5, 25);
      // Keep injections off special days: a configured calendar suppresses anomalies there by design.
      while (s < slot + slotDays - 12 && calendarNear(s)) s++;
      if (calendarNear(s)) continue;
      const roll = rand();
      const candidates = regionsOf[c].filter((id) => aliveDuring(id, s, s + 10));
      if (candidates.length < 2) continue;
      const id = pick(candidates);
      if (roll < 0.24) {
        const len = randInt(rand, 1, 3);
        multiply(id, s, s + len - 1, 1 + uniform(rand, 0.5, 1.2));
        const expect: AnomalyType[] = ['DOD', 'WOW', 'Spike', 'DT'];
        labels.push({
          kind: 'spike',
          seriesId: id,
          start: s,
          end: s + len - 1,
          expect,
          allow: VALUE_TYPES,
          primary: true,
        });
        echo(id, 'spike', s, s + len - 1);
      } else if (roll < 0.44) {
        const len = randInt(rand, 1, 3);
        multiply(id, s, s + len - 1, 1 - uniform(rand, 0.5, 0.85));
        const expect: AnomalyType[] = ['DOD', 'WOW', 'Spike', 'DT'];
        labels.push({
          kind: 'drop',
          seriesId: id,
          start: s,
          end: s + len - 1,
          expect,
          allow: VALUE_TYPES,
          primary: true,
        });
        echo(id, 'drop', s, s + len - 1);
      } else if (roll < 0.6) {
        const up = rand() < 0.5;
        const f = up ? 1 + uniform(rand, 0.4, 0.6) : 1 - uniform(rand, 0.35, 0.5);
        multiply(id, s, days - 1, f);
        const expect: AnomalyType[] = ['DOD', 'WOW', 'Spike', 'DT', 'ChangePoint', 'CW', 'MOM'];
        if (s + 140 <= days) expect.push('QOQ');
        if (s >= 400 && s + 40 <= days) expect.push('MPY');
        labels.push({
          kind: 'level-shift',
          seriesId: id,
          start: s,
          end: s + 6,
          expect,
          allow: VALUE_TYPES,
          primary: true,
        });
        echo(id, 'level-shift', s, s + 6);
      } else if (roll < 0.74) {
        const len = randInt(rand, 1, 6);
        for (let t = s; t < s + len; t++) present[id][t] = 0;
        labels.push({
          kind: 'gap',
          seriesId: id,
          start: s,
          end: s + len - 1,
          expect: ['Gap'],
          allow: [...VALUE_TYPES, 'Gap'],
          primary: true,
        });
        echo(id, 'gap', s, s + len - 1);
      } else if (roll < 0.87) {
        // Mix shift: volume moves from one region to its closest-sized sibling; the country total holds.
        const others = candidates.filter((o) => o !== id);
        let b = others[0];
        for (const o of others) if (Math.abs(level[o] - level[id]) < Math.abs(level[b] - level[id])) b = o;
        const ratio = Math.max(level[id], level[b]) / Math.min(level[id], level[b]);
        if (ratio > 1.3) continue;
        const delta = uniform(rand, 0.35, 0.5) * Math.min(level[id], level[b]);
        multiply(id, s, days - 1, 1 + delta / level[id]);
        multiply(b, s, days - 1, 1 - delta / level[b]);
        for (const sid of [id, b]) {
          labels.push({
            kind: 'mix-shift',
            seriesId: sid,
            start: s,
            end: s + 6,
            expect: ['Mix'],
            allow: VALUE_TYPES,
            primary: true,
          });
        }
        // Regions differ a little in weekly profile, so the country moves slightly too.
        echo(id, 'mix-shift', s, s + 6);
      } else {
        // Common shock: every region of the country drops for a few days except one, the peer outlier.
        const len = randInt(rand, 2, 4);
        const f = 1 - uniform(rand, 0.45, 0.6);
        const odd = id;
        const hit = regionsOf[c].filter((o) => o !== odd && alive[o].from <= s && s + len <= alive[o].to);
        if (hit.length < 3) continue;
        for (const o of hit) {
          multiply(o, s, s + len - 1, f);
          labels.push({
            kind: 'common-shock',
            seriesId: o,
            start: s,
            end: s + len - 1,
            expect: ['DOD', 'WOW', 'Spike', 'DT'],
            allow: VALUE_TYPES,
            primary: true,
          });
        }
        labels.push({
          kind: 'common-shock',
          seriesId: odd,
          start: s,
          end: s + len - 1,
          expect: ['Peer'],
          allow: VALUE_TYPES,
          primary: true,
        });
        echo(odd, 'common-shock', s, s + len - 1);
      }
    }
  }

  // Values: base curve × injections × calendar × noise; missing days are zero-filled.
  const values: Float64Array[] = series.map(() => new Float64Array(days));
  for (const id of allRegions) {
    const noise = uniform(rand, 0.02, 0.06);
    const trend = uniform(rand, -0.08, 0.12) / 365;
    const yearly = uniform(rand, 0, 0.08);
    const phase = uniform(rand, 0, 2 * Math.PI);
    const profile = WEEK_PROFILE.map((p) => p * uniform(rand, 0.9, 1.1));
    const v = values[id];
    const fx = factor[id];
    const pr = present[id];
    let wd = (((dayIndex0 + 3) % 7) + 7) % 7;
    for (let t = 0; t < days; t++) {
      if (pr[t] !== 0) {
        const base =
          level[id] *
          profile[wd] *
          (1 + trend * t) *
          (1 + yearly * Math.sin((2 * Math.PI * t) / 365.25 + phase));
        v[t] = Math.max(0, base * fx[t] * holiday[t] * (1 + noise * normal()));
      }
      wd = wd === 6 ? 0 : wd + 1;
    }
  }
  for (let c = 0; c < nCountries; c++) {
    const cv = values[1 + c];
    for (const id of regionsOf[c]) for (let t = 0; t < days; t++) cv[t] += values[id][t];
    for (let t = 0; t < days; t++) values[0][t] += cv[t];
  }
  return { dayIndex0, days, series, values, present, labels, specialDates: config };
}
