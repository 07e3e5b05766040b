/**
 * A hotel-chain cube for the detection and ranking evaluation (docs/detection-quality.md): daily
 * bookings (count) and revenue (value) per district → hotel × room type × channel, with a weekly
 * profile, a yearly season, a Christmas/New Year period, sparse leaves (a small hotel's suites
 * booked through a minor channel see 0–3 bookings a day; a day without bookings has no source row)
 * and injected spikes, drops, level shifts and gaps on series of material volume (districts,
 * hotels, hotel × room type, hotel × channel, leaves). The same seed and options give the same cube.
 */
import { daysFromCivil, fromEpochDay, toEpochDay } from '../../lib/calendar/days';
import type { SpecialDatesConfig } from '../../lib/calendar/special-calendar';
import { makeNormal, makeRng, randInt, uniform } from './rng';

export interface CubeOptions {
  seed: number;
  districts: number;
  hotels: number;
  roomTypes: number;
  channels: number;
  days: number;
  start: string;
  injections: number;
  /** Share of the last day's source rows present (the day is still being filled); 1 or absent = complete. */
  lastDayShare?: number;
  /** Least expected bookings a day of a series that gets an injection. */
  minInjectionVolume?: number;
}

/** ≈198 series × 1 year: 3 districts, 18 hotels, 2 room types, 2 channels. */
export const SMALL_CUBE: CubeOptions = {
  seed: 7,
  districts: 3,
  hotels: 18,
  roomTypes: 2,
  channels: 2,
  days: 365,
  start: '2024-01-01',
  injections: 30,
};

/** ≈3,978 series × 3 years: 30 districts, 190 hotels, 2 room types, 5 channels, 300 injections. */
export const HOTEL_CUBE: CubeOptions = {
  seed: 11,
  districts: 30,
  hotels: 190,
  roomTypes: 2,
  channels: 5,
  days: 1096,
  start: '2022-01-01',
  injections: 300,
};

export const CUBE_CATEGORIES = [
  { name: 'district' },
  { name: 'hotel', parent: 'district' },
  { name: 'room_type' },
  { name: 'channel' },
];

export type CubeKey = {
  district: string | null;
  hotel: string | null;
  room_type: string | null;
  channel: string | null;
};

export interface Leaf {
  district: string;
  hotel: string;
  room_type: string;
  channel: string;
}

export type InjectionKind = 'spike' | 'drop' | 'level-shift' | 'gap';

export interface CubeInjection {
  kind: InjectionKind;
  /** The injected series (null = all values of that category). */
  key: CubeKey;
  /** Day indices (inclusive) in the cube's arrays. */
  start: number;
  end: number;
  /** Multiplies the expected bookings of every leaf of the series; 0 = no rows (gap). */
  factor: number;
}

export interface Cube {
  options: CubeOptions;
  day0: number;
  days: number;
  leaves: Leaf[];
  /** Expected bookings per leaf and day without injections (leaf l: [l * days, (l + 1) * days)). */
  base: Float64Array;
  /** The injection factor per leaf and day. */
  factor: Float64Array;
  /** Average price per leaf (value = bookings × price × noise). */
  price: Float64Array;
  /** Source rows: one per leaf and day with at least one booking: leaf, day index, revenue, bookings. */
  rowLeaf: Int32Array;
  rowDay: Int32Array;
  rowAmount: Float64Array;
  rowCount: Int32Array;
  rows: number;
  injections: CubeInjection[];
  specialDates: SpecialDatesConfig;
  /** Series of the view: (1 + districts + hotels) × (1 + room types) × (1 + channels). */
  seriesCount: number;
}

const WEEK = [0.9, 0.95, 1.0, 1.0, 1.1, 1.25, 0.8]; // Monday first

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

/** True when the leaf belongs to the series of `key`. */
export function leafIn(leaf: Leaf, key: CubeKey): boolean {
  return (
    (key.district === null || key.district === leaf.district) &&
    (key.hotel === null || key.hotel === leaf.hotel) &&
    (key.room_type === null || key.room_type === leaf.room_type) &&
    (key.channel === null || key.channel === leaf.channel)
  );
}

/** True when series `inner` is `outer` or one of its descendants (every category outer fixes, inner fixes the same). */
export function contains(outer: CubeKey, inner: CubeKey): boolean {
  return (['district', 'hotel', 'room_type', 'channel'] as const).every(
    (c) => outer[c] === null || outer[c] === inner[c],
  );
}

/**
 * True when two series share at least one leaf (each category is open in one of them or the same
 * in both): an injection on one moves the other, by movedShare.
 */
export function overlaps(a: CubeKey, b: CubeKey): boolean {
  return (['district', 'hotel', 'room_type', 'channel'] as const).every(
    (c) => a[c] === null || b[c] === null || a[c] === b[c],
  );
}

export function keyText(k: CubeKey): string {
  return [k.district, k.hotel, k.room_type, k.channel].map((x) => x ?? '*').join('/');
}

/** The Christmas/New Year period of the cube's calendar (also configured as a special period). */
function holidayFactor(day: number): number {
  const iso = fromEpochDay(day);
  const md = iso.slice(5);
  if (md >= '12-23' && md <= '12-27') return 0.5;
  if (md === '12-31' || md === '01-01') return 1.35;
  return 1;
}

export function generateCube(options: CubeOptions): Cube {
  const rand = makeRng(options.seed);
  const normal = makeNormal(rand);
  const day0 = toEpochDay(options.start);
  const days = options.days;
  const roomShare =
    options.roomTypes === 2 ? [0.75, 0.25] : Array(options.roomTypes).fill(1 / options.roomTypes);
  const chanRaw = [0.35, 0.3, 0.15, 0.12, 0.08].slice(0, options.channels);
  const chanShare =
    options.channels === 2 ? [0.6, 0.4] : chanRaw.map((x) => x / chanRaw.reduce((a, b) => a + b, 0));
  const roomPrice = [110, 240, 180, 90].slice(0, options.roomTypes);
  const leaves: Leaf[] = [];
  const hotelSize: number[] = [];
  const hotelDistrict: number[] = [];
  for (let h = 0; h < options.hotels; h++) {
    hotelDistrict.push(h % options.districts);
    hotelSize.push(Math.exp(uniform(rand, Math.log(6), Math.log(90)))); // rooms sold a day
  }
  const leafOf: number[] = [];
  for (let h = 0; h < options.hotels; h++)
    for (let r = 0; r < options.roomTypes; r++)
      for (let c = 0; c < options.channels; c++) {
        leaves.push({
          district: `D${String(hotelDistrict[h] + 1).padStart(2, '0')}`,
          hotel: `H${String(h + 1).padStart(3, '0')}`,
          room_type: `R${r + 1}`,
          channel: `C${c + 1}`,
        });
        leafOf.push(h);
      }
  const n = leaves.length;
  const base = new Float64Array(n * days);
  const factor = new Float64Array(n * days).fill(1);
  const price = new Float64Array(n);
  const season = new Float64Array(days);
  for (let t = 0; t < days; t++) {
    const d = day0 + t;
    const doy = d - daysFromCivil(Number(fromEpochDay(d).slice(0, 4)), 1, 1);
    season[t] =
      (1 + 0.25 * Math.sin((2 * Math.PI * (doy - 100)) / 365.25)) *
      WEEK[(((d + 3) % 7) + 7) % 7] *
      holidayFactor(d);
  }
  leaves.forEach((leaf, l) => {
    const h = leafOf[l];
    const r = Number(leaf.room_type.slice(1)) - 1;
    const c = Number(leaf.channel.slice(1)) - 1;
    const level = hotelSize[h] * roomShare[r] * chanShare[c];
    const trend = uniform(rand, -0.1, 0.15) / 365;
    price[l] = roomPrice[r] * uniform(rand, 0.8, 1.25) * (c === 0 ? 1.05 : 1);
    for (let t = 0; t < days; t++) base[l * days + t] = level * season[t] * (1 + trend * t);
  });

  // Candidate series for injections: materially sized districts, hotels, hotel × room, hotel × channel, leaves.
  const minVol = options.minInjectionVolume ?? 15;
  const volume = (key: CubeKey) => {
    let v = 0;
    leaves.forEach((leaf, l) => {
      if (leafIn(leaf, key)) v += base[l * days + Math.floor(days / 2)];
    });
    return v;
  };
  const candidates: CubeKey[] = [];
  const districts = [...new Set(leaves.map((l) => l.district))];
  for (const d of districts) candidates.push({ district: d, hotel: null, room_type: null, channel: null });
  for (let h = 0; h < options.hotels; h++) {
    const hk = leaves[h * options.roomTypes * options.channels];
    candidates.push({ district: hk.district, hotel: hk.hotel, room_type: null, channel: null });
    for (let r = 1; r <= options.roomTypes; r++)
      candidates.push({ district: hk.district, hotel: hk.hotel, room_type: `R${r}`, channel: null });
    for (let c = 1; c <= options.channels; c++)
      candidates.push({ district: hk.district, hotel: hk.hotel, room_type: null, channel: `C${c}` });
  }
  for (const leaf of leaves) candidates.push({ ...leaf });
  const material = candidates.filter((k) => volume(k) >= minVol);

  const injections: CubeInjection[] = [];
  const busy = new Map<string, number[][]>(); // hotel or district → taken [start, end]
  const quiet = (start: number, end: number) => {
    for (let t = start - 2; t <= end + 2; t++) if (holidayFactor(day0 + t) !== 1) return false;
    return true;
  };
  let guard = 0;
  while (injections.length < options.injections && guard++ < options.injections * 200) {
    const key = material[randInt(rand, 0, material.length - 1)];
    const roll = rand();
    const kind: InjectionKind =
      roll < 0.3 ? 'spike' : roll < 0.55 ? 'drop' : roll < 0.85 ? 'level-shift' : 'gap';
    const len =
      kind === 'level-shift'
        ? randInt(rand, 21, 70)
        : kind === 'gap'
          ? randInt(rand, 1, 5)
          : randInt(rand, 1, 3);
    const start = randInt(rand, 70, days - 15 - len);
    const end = start + len - 1;
    if (!quiet(start, end)) continue;
    // No two injections touching the same hotels within 3 weeks of each other.
    const hotels = [...new Set(leaves.filter((lf) => leafIn(lf, key)).map((lf) => lf.hotel))];
    const clash = hotels.some((h) => (busy.get(h) ?? []).some(([a, b]) => start <= b + 21 && a <= end + 21));
    if (clash) continue;
    for (const h of hotels) busy.set(h, [...(busy.get(h) ?? []), [start, end]]);
    const f =
      kind === 'spike'
        ? uniform(rand, 1.7, 2.6)
        : kind === 'drop'
          ? uniform(rand, 0.2, 0.5)
          : kind === 'gap'
            ? 0
            : rand() < 0.5
              ? uniform(rand, 0.5, 0.65)
              : uniform(rand, 1.45, 1.8);
    injections.push({ kind, key, start, end, factor: f });
    leaves.forEach((leaf, l) => {
      if (!leafIn(leaf, key)) return;
      for (let t = start; t <= end; t++) factor[l * days + t] *= f;
    });
  }

  // Source rows: bookings ~ Poisson(expected × factor); revenue = bookings × price × noise; no row without bookings.
  const cap = Math.ceil(n * days);
  const rowLeaf = new Int32Array(cap);
  const rowDay = new Int32Array(cap);
  const rowAmount = new Float64Array(cap);
  const rowCount = new Int32Array(cap);
  let rows = 0;
  for (let l = 0; l < n; l++) {
    for (let t = 0; t < days; t++) {
      const i = l * days + t;
      if (factor[i] === 0) continue;
      const k = poisson(rand, normal, base[i] * factor[i]);
      if (k === 0) continue;
      if (t === days - 1 && options.lastDayShare !== undefined && rand() >= options.lastDayShare) continue;
      rowLeaf[rows] = l;
      rowDay[rows] = t;
      rowCount[rows] = k;
      rowAmount[rows] = Math.round(k * price[l] * (1 + 0.08 * normal()) * 100) / 100;
      rows++;
    }
  }
  return {
    options,
    day0,
    days,
    leaves,
    base,
    factor,
    price,
    rowLeaf,
    rowDay,
    rowAmount,
    rowCount,
    rows,
    injections,
    specialDates: {
      specialPeriods: [
        { start: '12.23', end: '12.27', impact: 'both' },
        { start: '12.31', end: '01.01', impact: 'both' },
      ],
    },
    seriesCount: (1 + districts.length + options.hotels) * (1 + options.roomTypes) * (1 + options.channels),
  };
}

/**
 * How much injection `inj` moved series `key` over the injection's days: |Σ injected − Σ expected|
 * / Σ expected of the series' expected revenue (value) or bookings (count).
 */
export function movedShare(cube: Cube, inj: CubeInjection, key: CubeKey, measure: 'value' | 'count'): number {
  const { days } = cube;
  let before = 0;
  let after = 0;
  cube.leaves.forEach((leaf, l) => {
    if (!leafIn(leaf, key)) return;
    const w = measure === 'value' ? cube.price[l] : 1;
    for (let t = inj.start; t <= inj.end; t++) {
      const e = cube.base[l * days + t] * w;
      before += e;
      after += e * (leafIn(leaf, inj.key) ? inj.factor : 1);
    }
  });
  return before === 0 ? 0 : Math.abs(after - before) / before;
}

/** Columns of a source table holding the cube's rows (the benches' and the eval's hotel_bookings). */
export const CUBE_SOURCE_DDL = `(day integer NOT NULL, district text NOT NULL, hotel text NOT NULL, room_type text NOT NULL,
  channel text NOT NULL, revenue double precision NOT NULL, bookings integer NOT NULL)`;

/** The cube's rows as COPY text lines (CUBE_SOURCE_DDL's columns), in chunks of `chunk` rows. */
export function* cubeCopyLines(cube: Cube, chunk = 20_000): Generator<string> {
  const days = Array.from({ length: cube.days }, (_, i) =>
    Number(fromEpochDay(cube.day0 + i).replaceAll('-', '')),
  );
  const leaf = cube.leaves.map((l) => `${l.district}\t${l.hotel}\t${l.room_type}\t${l.channel}`);
  let out: string[] = [];
  for (let r = 0; r < cube.rows; r++) {
    out.push(
      `${days[cube.rowDay[r]]}\t${leaf[cube.rowLeaf[r]]}\t${cube.rowAmount[r]}\t${cube.rowCount[r]}\n`,
    );
    if (out.length >= chunk) {
      yield out.join('');
      out = [];
    }
  }
  if (out.length) yield out.join('');
}
