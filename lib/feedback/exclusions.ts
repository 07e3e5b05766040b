/**
 * Feedback that teaches (docs/feedback.md): per series, the days of records marked "confirmed" or "not an
 * anomaly" as special-day flags for the next detection. Every set bit keeps a day out of detector baselines;
 * "not-anomaly" days also carry both suppress bits, so the same window is not reported again; "confirmed" days
 * carry only FEEDBACK_EXCLUDED (a bit no detector reads as a direction), so the incident itself is still reported.
 */
import { sql } from 'drizzle-orm';
import { SUPPRESS_NEGATIVE, SUPPRESS_POSITIVE } from '../calendar/special-calendar';
import { toEpochDay } from '../calendar/days';
import type { Database } from '../db/database';

/** Out of baselines, never a reason to suppress a report. */
export const FEEDBACK_EXCLUDED = 8;

export interface SeriesExclusion {
  /** The view's calendar flags with the series' feedback days added (detectors that use special dates). */
  withCalendar: Uint8Array;
  /** Only the feedback days (detectors that ignore special dates still keep them out of baselines). */
  alone: Uint8Array;
  /** The same two without the confirmed days: how a window detector judges a period that holds them. */
  withCalendarUnconfirmed: Uint8Array;
  aloneUnconfirmed: Uint8Array;
  /** The confirmed windows, as epoch days [start, end]. */
  confirmed: Array<[number, number]>;
}

export interface FeedbackDays {
  seriesId: number;
  status: 'confirmed' | 'not-anomaly';
  startDay: number;
  endDay: number;
}

/** Pure: the per-series flags of feedback windows over days dayIndex0 .. dayIndex0 + days - 1. */
export function exclusionFlags(
  feedback: readonly FeedbackDays[],
  dayIndex0: number,
  days: number,
  calendarFlags: Uint8Array | null,
): Map<number, SeriesExclusion> {
  const out = new Map<number, SeriesExclusion>();
  for (const f of feedback) {
    const from = Math.max(0, f.startDay - dayIndex0);
    const to = Math.min(days - 1, f.endDay - dayIndex0);
    if (to < from) continue;
    let e = out.get(f.seriesId);
    if (!e) {
      e = {
        withCalendar: new Uint8Array(days),
        alone: new Uint8Array(days),
        withCalendarUnconfirmed: new Uint8Array(days),
        aloneUnconfirmed: new Uint8Array(days),
        confirmed: [],
      };
      if (calendarFlags) {
        e.withCalendar.set(calendarFlags.subarray(0, days));
        e.withCalendarUnconfirmed.set(calendarFlags.subarray(0, days));
      }
      out.set(f.seriesId, e);
    }
    const confirmed = f.status === 'confirmed';
    const bits = confirmed ? FEEDBACK_EXCLUDED : SUPPRESS_POSITIVE | SUPPRESS_NEGATIVE;
    if (confirmed) e.confirmed.push([f.startDay, f.endDay]);
    for (let t = from; t <= to; t++) {
      e.alone[t] |= bits;
      e.withCalendar[t] |= bits;
      if (!confirmed) {
        e.aloneUnconfirmed[t] |= bits;
        e.withCalendarUnconfirmed[t] |= bits;
      }
    }
  }
  return out;
}

/**
 * The exclusions of one view (for each of its measures) from its stored feedback (confirmed and not-anomaly) on any measure
 * of a series: an event's days are kept out of the value's, the count's and the ratio's baselines alike, and
 * a window marked not an anomaly does not come back as another measure's record.
 */
export async function feedbackExclusions(
  db: Database,
  viewId: number,
  dayIndex0: number,
  days: number,
  calendarFlags: Uint8Array | null,
): Promise<Map<number, SeriesExclusion>> {
  if (days <= 0) return new Map();
  const rows = await db.rows<{ series_id: number; status: FeedbackDays['status']; s: string; e: string }>(sql`
    SELECT series_id, status, start_date::text AS s, end_date::text AS e FROM anomaly_feedback
    WHERE data_view_id = ${viewId} AND status IN ('confirmed', 'not-anomaly')`);
  return exclusionFlags(
    rows.map((r) => ({
      seriesId: Number(r.series_id),
      status: r.status,
      startDay: toEpochDay(r.s),
      endDay: toEpochDay(r.e),
    })),
    dayIndex0,
    days,
    calendarFlags,
  );
}
