/**
 * An interval series the project ships (docs/detection-quality.md, "Interval measures"): an office's daily
 * mean temperature in °C over two years, generated. A season (about 20.5 °C in winter, 24.5 °C in summer,
 * as heating and air conditioning hold it), a weekly pattern (the building cools on weekends: −1.8 °C on
 * Saturday, −2.2 °C on Sunday), day noise of 0.35 °C with a little persistence (weather), and labelled
 * cooling failures: the air conditioning off for a few summer days, +3 to +4 °C. Zero means nothing here:
 * 20 °C → 24 °C is +20 %, the same move in °F +6 %.
 */
import { makeNormal, makeRng } from './rng';

export interface TemperatureFault {
  /** Day indices, inclusive. */
  from: number;
  to: number;
  /** °C added on those days. */
  rise: number;
}

export interface OfficeTemperature {
  start: string;
  values: number[];
  faults: TemperatureFault[];
}

/** Two labelled cooling failures in the second summer (days from 2023-01-02, a Monday). */
export const COOLING_FAILURES: readonly TemperatureFault[] = [
  { from: 548, to: 550, rise: 3.5 }, // 2024-07-03 .. 07-05, Wednesday to Friday
  { from: 589, to: 590, rise: 4 }, // 2024-08-13 .. 08-14, Tuesday and Wednesday
];

export function officeTemperature(
  seed = 7,
  days = 730,
  faults: readonly TemperatureFault[] = COOLING_FAILURES,
): OfficeTemperature {
  const normal = makeNormal(makeRng(seed));
  const values: number[] = [];
  let weather = 0;
  for (let t = 0; t < days; t++) {
    // Day 0 is Monday 2 January; the summer peak about day 200 of each year.
    const season = 22.5 - 2 * Math.cos((2 * Math.PI * (t - 18)) / 365.25);
    const weekday = t % 7;
    const week = weekday === 5 ? -1.8 : weekday === 6 ? -2.2 : 0;
    weather = 0.5 * weather + 0.3 * normal();
    let v = season + week + weather + 0.2 * normal();
    for (const f of faults) if (t >= f.from && t <= f.to) v += f.rise;
    values.push(Math.round(v * 100) / 100);
  }
  return { start: '2023-01-02', values, faults: [...faults] };
}
