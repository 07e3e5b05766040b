/** The clock port, so that schedules, tokens and time ranges can be tested at any instant. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export function fixedClock(at: Date | string): Clock & { set(d: Date | string): void } {
  let t = new Date(at);
  return {
    now: () => new Date(t),
    set: (d) => {
      t = new Date(d);
    },
  };
}
