/**
 * A small bookings-and-revenue cube for the ratio evaluation (issue 29): hotels × channels, daily bookings
 * (count) and revenue (value), so that revenue ÷ bookings is the average daily rate. It has a weekly
 * profile, a summer season (bookings and prices), a Christmas dip (Dec 23–27) every year, Poisson
 * bookings, a price per booking with its own noise, no data on a day without bookings, and injected
 * price changes (the rate moves, bookings do not), volume changes (bookings move at the usual rate)
 * and both, on series of material volume (a hotel, or a hotel × channel with ≥ 15 bookings a day),
 * away from Christmas, at most one per hotel within three weeks. The same options give the same cube.
 */
import { daysFromCivil, fromEpochDay, toEpochDay, weekday } from '../../lib/calendar/days';
import { makeNormal, makeRng, randInt, uniform } from '../synthetic/rng';

export interface RatioCubeOptions {
  seed: number;
  hotels: number;
  channels: number;
  start: string;
  days: number;
  /** Injections of each kind. */
  perKind: number;
}

/** 8 hotels × 3 channels (36 series), 2023–2025, 12 injections of each kind. */
export const RATIO_CUBE: RatioCubeOptions = {
  seed: 29,
  hotels: 8,
  channels: 3,
  start: '2023-01-01',
  days: 1096,
  perKind: 12,
};

export type RatioInjectionKind = 'price' | 'volume' | 'both';

export interface RatioInjection {
  kind: RatioInjectionKind;
  /** [hotel, channel] codes, 0 = all. */
  key: [number, number];
  start: number;
  end: number;
  /** Multiplies the price per booking (1: unchanged). */
  price: number;
  /** Multiplies the expected bookings (1: unchanged). */
  volume: number;
}

export interface RatioCube {
  options: RatioCubeOptions;
  day0: number;
  days: number;
  /** Series keys [hotel, channel] (0 = all), the total first. */
  keys: [number, number][];
  /** Per series and day (series s: [s * days, (s + 1) * days)): revenue, bookings, 1 when some booking. */
  value: Float64Array;
  count: Float64Array;
  present: Uint8Array;
  /** Leaf keys, and per leaf and day (leaf l: [l * days, (l + 1) * days)) the expected bookings and rate without injections. */
  leaves: [number, number][];
  expectedCount: Float64Array;
  expectedRate: Float64Array;
  injections: RatioInjection[];
}

const WEEK = [0.9, 0.95, 1.0, 1.0, 1.1, 1.25, 0.8]; // Monday first
const CHANNEL_SHARE = [0.55, 0.3, 0.15];
const CHANNEL_PRICE = [1.0, 0.88, 1.12];
/** Relative noise of one booking's price. */
export const PRICE_NOISE = 0.25;

/** The summer season, 0..1: a smooth bump from mid-May to mid-October peaking on July 31. */
export function summer(day: number): number {
  const iso = fromEpochDay(day);
  const year = Number(iso.slice(0, 4));
  const x = (day - daysFromCivil(year, 7, 31)) / 75;
  return Math.abs(x) >= 1 ? 0 : Math.cos((Math.PI / 2) * x) ** 2;
}

/** The Christmas dip: Dec 23–27. */
export function christmasDip(day: number): boolean {
  const md = fromEpochDay(day).slice(5);
  return md >= '12-23' && md <= '12-27';
}

export function leafCount(o: RatioCubeOptions): number {
  return o.hotels * Math.min(o.channels, CHANNEL_SHARE.length);
}

/** Whether the series of `outer` contains the series of `inner` (0 = all). */
export function containsKey(outer: readonly number[], inner: readonly number[]): boolean {
  return outer.every((c, i) => c === 0 || c === inner[i]);
}

/** Whether two series share leaves. */
export function overlapsKey(a: readonly number[], b: readonly number[]): boolean {
  return a.every((c, i) => c === 0 || b[i] === 0 || c === b[i]);
}

export function keyName(key: readonly number[]): string {
  return `${key[0] === 0 ? '*' : `H${key[0]}`}/${key[1] === 0 ? '*' : `C${key[1]}`}`;
}

export function generateRatioCube(o: RatioCubeOptions = RATIO_CUBE): RatioCube {
  const rand = makeRng(o.seed);
  const normal = makeNormal(rand);
  const channels = Math.min(o.channels, CHANNEL_SHARE.length);
  const day0 = toEpochDay(o.start);
  const days = o.days;
  const size = Array.from({ length: o.hotels }, () => uniform(rand, 30, 110));
  const price = Array.from({ length: o.hotels }, () => uniform(rand, 90, 220));
  const keys: [number, number][] = [];
  for (let h = 0; h <= o.hotels; h++) for (let c = 0; c <= channels; c++) keys.push([h, c]);
  const meanBookings = (key: [number, number]) => {
    let sum = 0;
    for (let h = 1; h <= o.hotels; h++)
      for (let c = 1; c <= channels; c++)
        if (containsKey(key, [h, c])) sum += size[h - 1] * CHANNEL_SHARE[c - 1];
    return sum;
  };
  // Injections: a hotel or a material hotel × channel, away from Christmas and the first 120 days.
  const candidates = keys.filter(([h, c]) => h > 0 && (c === 0 || meanBookings([h, c]) >= 15));
  const injections: RatioInjection[] = [];
  const kinds: RatioInjectionKind[] = [];
  for (let i = 0; i < o.perKind; i++) kinds.push('price', 'volume', 'both');
  for (const kind of kinds) {
    for (let attempt = 0; attempt < 200; attempt++) {
      const key = candidates[randInt(rand, 0, candidates.length - 1)];
      const len = randInt(rand, 3, 21);
      const start = randInt(rand, 120, days - len - 10);
      const end = start + len - 1;
      let nearChristmas = false;
      for (let t = start - 10; t <= end + 10; t++) {
        const md = fromEpochDay(day0 + t).slice(5);
        if (md >= '12-15' || md <= '01-07') nearChristmas = true;
      }
      if (nearChristmas) continue;
      if (injections.some((x) => x.key[0] === key[0] && x.start <= end + 21 && start <= x.end + 21)) continue;
      const up = rand() < 0.5;
      const priceFactor = up ? uniform(rand, 1.25, 1.4) : uniform(rand, 0.7, 0.8);
      const volUp = kind === 'both' ? rand() < 0.5 : up;
      const volumeFactor = volUp ? uniform(rand, 1.5, 1.8) : uniform(rand, 0.5, 0.65);
      injections.push({
        kind,
        key,
        start,
        end,
        price: kind === 'volume' ? 1 : priceFactor,
        volume: kind === 'price' ? 1 : volumeFactor,
      });
      break;
    }
  }
  injections.sort((a, b) => a.start - b.start);
  const n = keys.length * days;
  const value = new Float64Array(n);
  const count = new Float64Array(n);
  const present = new Uint8Array(n);
  const rowOf = new Map(keys.map((k, s) => [`${k[0]}/${k[1]}`, s]));
  const leaves: [number, number][] = [];
  const expectedCount = new Float64Array(o.hotels * channels * days);
  const expectedRate = new Float64Array(o.hotels * channels * days);
  for (let h = 1; h <= o.hotels; h++) {
    for (let c = 1; c <= channels; c++) {
      const leaf = leaves.push([h, c]) - 1;
      const targets = [`0/0`, `${h}/0`, `0/${c}`, `${h}/${c}`].map((k) => rowOf.get(k) as number);
      const mine = injections.filter((x) => containsKey(x.key, [h, c]));
      for (let t = 0; t < days; t++) {
        const day = day0 + t;
        const wd = weekday(day);
        const season = summer(day);
        const dip = christmasDip(day);
        let lambda =
          size[h - 1] * CHANNEL_SHARE[c - 1] * WEEK[wd] * (1 + 0.35 * season) * (1 + (0.1 * t) / days);
        if (dip) lambda *= 0.45;
        let rate = price[h - 1] * CHANNEL_PRICE[c - 1] * (wd >= 4 && wd <= 5 ? 1.08 : 1) * (1 + 0.2 * season);
        if (dip) rate *= 0.9;
        expectedCount[leaf * days + t] = lambda;
        expectedRate[leaf * days + t] = rate;
        for (const x of mine)
          if (t >= x.start && t <= x.end) {
            lambda *= x.volume;
            rate *= x.price;
          }
        const bookings = poisson(rand, normal, lambda);
        if (bookings === 0) continue;
        const revenue = bookings * rate * Math.max(0.2, 1 + (PRICE_NOISE * normal()) / Math.sqrt(bookings));
        for (const s of targets) {
          value[s * days + t] += revenue;
          count[s * days + t] += bookings;
          present[s * days + t] = 1;
        }
      }
    }
  }
  return {
    options: o,
    day0,
    days,
    keys,
    value,
    count,
    present,
    leaves,
    expectedCount,
    expectedRate,
    injections,
  };
}

/**
 * How much injection `x` moved the series `key` over its days, in expectation: |after ÷ before − 1| of
 * the series' bookings, revenue, or revenue per booking.
 */
export function movedShare(
  cube: RatioCube,
  x: RatioInjection,
  key: readonly number[],
  measure: 'value' | 'count' | 'ratio',
): number {
  let c0 = 0;
  let c1 = 0;
  let v0 = 0;
  let v1 = 0;
  cube.leaves.forEach((leaf, l) => {
    if (!containsKey(key, leaf)) return;
    const hit = containsKey(x.key, leaf);
    for (let t = x.start; t <= x.end; t++) {
      const n = cube.expectedCount[l * cube.days + t];
      const r = cube.expectedRate[l * cube.days + t];
      c0 += n;
      v0 += n * r;
      c1 += hit ? n * x.volume : n;
      v1 += hit ? n * x.volume * r * x.price : n * r;
    }
  });
  if (c0 === 0 || v0 === 0 || c1 === 0) return 0;
  if (measure === 'count') return Math.abs(c1 / c0 - 1);
  if (measure === 'value') return Math.abs(v1 / v0 - 1);
  return Math.abs(v1 / c1 / (v0 / c0) - 1);
}

function poisson(rand: () => number, normal: () => number, lambda: number): number {
  if (lambda <= 0) return 0;
  if (lambda > 40) return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * normal()));
  const l = Math.exp(-lambda);
  let k = 0;
  let p = 1;
  do {
    k++;
    p *= rand();
  } while (p > l);
  return k - 1;
}
