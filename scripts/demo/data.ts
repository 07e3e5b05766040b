/**
 * The demo's source data: daily revenue and orders of a store chain per country → region → city and
 * sales channel, 2.5 years up to an anchor day, with weekly and yearly seasonality, a trend, public
 * holidays, noise, and injected anomalies of every kind the detectors look for (a price cut among them:
 * the average order value falls while the orders hold). Deterministic: the
 * same anchor gives the same rows, so later starts can extend the data without changing the past.
 */

export interface DemoRow {
  /** yyyy-MM-dd */
  day: string;
  country: string;
  region: string;
  city: string;
  channel: string;
  revenue: number;
  orders: number;
}

/** What was injected where, for the README and for checking detections by eye. */
export interface DemoInjection {
  kind: string;
  where: string;
  from: string;
  to: string;
}

const CITIES: Array<{ country: string; region: string; city: string; level: number }> = [
  { country: 'Czechia', region: 'Bohemia', city: 'Prague', level: 9000 },
  { country: 'Czechia', region: 'Bohemia', city: 'Plzen', level: 2500 },
  { country: 'Czechia', region: 'Moravia', city: 'Brno', level: 4500 },
  { country: 'Czechia', region: 'Moravia', city: 'Ostrava', level: 3000 },
  { country: 'Germany', region: 'North', city: 'Hamburg', level: 8000 },
  { country: 'Germany', region: 'North', city: 'Berlin', level: 11000 },
  { country: 'Germany', region: 'South', city: 'Munich', level: 9500 },
  { country: 'Germany', region: 'South', city: 'Stuttgart', level: 5000 },
  { country: 'Austria', region: 'East', city: 'Vienna', level: 8500 },
  { country: 'Austria', region: 'East', city: 'Linz', level: 2000 },
  { country: 'Austria', region: 'South', city: 'Graz', level: 3500 },
];

const CHANNELS: Array<{ channel: string; share: number; basket: number; growth: number; week: number[] }> = [
  // Weekly factors Sunday..Saturday.
  { channel: 'store', share: 0.55, basket: 38, growth: 0.03, week: [0.6, 0.85, 0.9, 0.95, 1.0, 1.15, 1.35] },
  { channel: 'web', share: 0.3, basket: 62, growth: 0.08, week: [1.1, 1.1, 1.05, 1.0, 1.0, 0.92, 0.85] },
  { channel: 'app', share: 0.15, basket: 45, growth: 0.25, week: [1.2, 1.0, 0.95, 0.95, 1.0, 1.05, 1.1] },
];

export const NATIONAL_DAYS: Record<string, string[]> = {
  Czechia: ['10-28', '07-06'],
  Germany: ['10-03'],
  Austria: ['10-26'],
};
export const DEMO_DAYS = 913;
const DAY = 86_400_000;

const iso = (t: number) => new Date(t).toISOString().slice(0, 10);
const parse = (d: string) => Date.parse(`${d}T00:00:00Z`);

/** Easter Sunday (Gregorian, anonymous algorithm). */
export function easter(year: number): number {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const day = ((h + l - 7 * m + 114) % 31) + 1;
  return Date.UTC(year, month - 1, day);
}

/** A reproducible uniform number in [0, 1) for (day, leaf, salt). */
function hash01(a: number, b: number, salt: number): number {
  let h = (a * 374761393 + b * 668265263 + salt * 2147483647) | 0;
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/** Multiplicative noise, lognormal with sigma `sigma` (6 % by default); salts apart give independent draws. */
function noise(day: number, leaf: number, sigma = 0.06, salt = 1): number {
  const u = Math.max(1e-9, hash01(day, leaf, salt));
  const v = hash01(day, leaf, salt + 1);
  const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  return Math.exp(sigma * z);
}

function holidayFactor(t: number, country: string, channel: string): number {
  const md = iso(t).slice(5);
  const year = new Date(t).getUTCFullYear();
  const store = channel === 'store';
  if (['12-25', '12-26', '01-01'].includes(md)) return store ? 0.08 : 0.6;
  if (md === '12-24') return store ? 0.55 : 0.8;
  const e = easter(year);
  // Easter Monday everywhere; Good Friday is a public holiday in Czechia and Germany, not in Austria.
  if (t === e + DAY || (t === e - 2 * DAY && country !== 'Austria')) return store ? 0.3 : 0.9;
  if (NATIONAL_DAYS[country]?.includes(md)) return store ? 0.4 : 1.05;
  return 1;
}

/** Black Friday of a year: the fourth Friday of November (epoch ms). */
export function blackFriday(year: number): number {
  const nov1 = Date.UTC(year, 10, 1);
  return nov1 + (((5 - new Date(nov1).getUTCDay() + 7) % 7) + 21) * DAY;
}

function seasonFactor(t: number): number {
  const d = new Date(t);
  const doy = Math.floor((t - Date.UTC(d.getUTCFullYear(), 0, 1)) / DAY);
  const yearly = 1 + 0.12 * Math.cos((2 * Math.PI * (doy - 350)) / 365);
  // Black Friday week: the fourth Friday of November and the days around it.
  const near = Math.abs(t - blackFriday(d.getUTCFullYear())) / DAY;
  return yearly * (near <= 3 ? 1.6 - near * 0.15 : 1);
}

/** The injected anomalies, as offsets (days before the anchor) and effects. */
function injections(anchor: number) {
  const at = (daysBefore: number) => anchor - daysBefore * DAY;
  // A one-day rise inside the Black Friday week would be a rise on a day declared to sell more (a
  // positive special date) and rightly not reported: such a spike moves to the nearest earlier day
  // outside the week, so the demo shows it whatever day it is started.
  const clear = (daysBefore: number) => {
    let d = daysBefore;
    const bfNear = (t: number) => Math.abs(t - blackFriday(new Date(t).getUTCFullYear())) / DAY <= 3;
    while (bfNear(at(d))) d++;
    return at(d);
  };
  const pragueSpike = clear(3);
  const munichSpike = clear(365);
  return {
    list: [
      { kind: 'spike', where: 'Prague / web', from: pragueSpike, to: pragueSpike },
      { kind: 'drop', where: 'Berlin / store', from: at(9), to: at(9) },
      { kind: 'gap (missing days)', where: 'Graz / store', from: at(21), to: at(17) },
      { kind: 'mix shift (store to web)', where: 'Brno', from: at(14), to: anchor },
      { kind: 'weekly pattern change (Saturdays halved)', where: 'Plzen / store', from: at(20), to: anchor },
      { kind: 'disappearing series', where: 'Ostrava / app', from: at(25), to: anchor },
      { kind: 'new series (a new city)', where: 'Linz', from: at(30), to: anchor },
      { kind: 'drift (growing trend)', where: 'Hamburg / web', from: at(35), to: anchor },
      { kind: 'level shift', where: 'Vienna / app', from: at(45), to: anchor },
      { kind: 'common shock (whole country down)', where: 'Germany', from: at(63), to: at(61) },
      { kind: 'temporary outage (level down)', where: 'Stuttgart / web', from: at(200), to: at(171) },
      { kind: 'spike', where: 'Munich / store', from: munichSpike, to: munichSpike },
      {
        kind: 'price cut (average order value -30 %, orders steady)',
        where: 'Munich / web',
        from: at(12),
        to: at(6),
      },
    ],
    effect(t: number, city: string, country: string, channel: string): number | null {
      let f = 1;
      if (city === 'Prague' && channel === 'web' && t === pragueSpike) f *= 3.2;
      if (city === 'Berlin' && channel === 'store' && t === at(9)) f *= 0.25;
      if (city === 'Graz' && channel === 'store' && t >= at(21) && t <= at(17)) return null;
      if (city === 'Brno' && t >= at(14)) f *= channel === 'store' ? 0.75 : channel === 'web' ? 1.46 : 1;
      if (city === 'Plzen' && channel === 'store' && t >= at(20) && new Date(t).getUTCDay() === 6) f *= 0.5;
      if (city === 'Ostrava' && channel === 'app' && t >= at(25)) return null;
      if (city === 'Linz' && t < at(30)) return null;
      if (city === 'Hamburg' && channel === 'web' && t >= at(35)) f *= 1 + 0.012 * ((t - at(35)) / DAY);
      if (city === 'Vienna' && channel === 'app' && t >= at(45)) f *= 1.5;
      if (country === 'Germany' && t >= at(63) && t <= at(61)) f *= 0.7;
      if (city === 'Stuttgart' && channel === 'web' && t >= at(200) && t <= at(171)) f *= 0.6;
      if (city === 'Munich' && channel === 'store' && t === munichSpike) f *= 2.5;
      return f;
    },
    /** What a price change does to the revenue of an order: orders stay, the average order value moves. */
    price(t: number, city: string, channel: string): number {
      return city === 'Munich' && channel === 'web' && t >= at(12) && t <= at(6) ? 0.7 : 1;
    },
  };
}

/** The injected anomalies of data anchored at `anchor` (yyyy-MM-dd). */
export function demoInjections(anchor: string): DemoInjection[] {
  return injections(parse(anchor)).list.map((i) => ({ ...i, from: iso(i.from), to: iso(i.to) }));
}

/** The rows of the days from..to (inclusive, yyyy-MM-dd) for data anchored at `anchor`. */
export function demoRows(anchor: string, from: string, to: string): DemoRow[] {
  const a = parse(anchor);
  const start = parse(anchor) - (DEMO_DAYS - 1) * DAY;
  const inj = injections(a);
  const rows: DemoRow[] = [];
  for (let t = Math.max(parse(from), start); t <= parse(to); t += DAY) {
    const dayIndex = Math.round((t - start) / DAY);
    const years = dayIndex / 365;
    const weekday = new Date(t).getUTCDay();
    CITIES.forEach((c, ci) => {
      CHANNELS.forEach((ch, hi) => {
        const leaf = ci * CHANNELS.length + hi;
        const effect = inj.effect(t, c.city, c.country, ch.channel);
        if (effect === null) return;
        const closedSunday = c.country === 'Germany' && ch.channel === 'store' && weekday === 0 ? 0.05 : 1;
        const revenue =
          c.level *
          ch.share *
          (1 + ch.growth) ** years *
          ch.week[weekday] *
          closedSunday *
          seasonFactor(t) *
          holidayFactor(t, c.country, ch.channel) *
          noise(dayIndex, leaf) *
          effect;
        // The average order value varies by itself from day to day (about 4 %); a price change moves it.
        const orders = Math.max(0, Math.round(revenue / (ch.basket * noise(dayIndex, leaf, 0.04, 3))));
        const rounded = Math.round(revenue * inj.price(t, c.city, ch.channel) * 100) / 100;
        rows.push({
          day: iso(t),
          country: c.country,
          region: c.region,
          city: c.city,
          channel: ch.channel,
          revenue: rounded,
          orders,
        });
      });
    });
  }
  return rows;
}

/** The first day of data anchored at `anchor`. */
export function demoStart(anchor: string): string {
  return iso(parse(anchor) - (DEMO_DAYS - 1) * DAY);
}
