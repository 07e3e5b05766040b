/** Feedback on an anomaly record (docs/feedback.md): one per stable key, shown on every record with that key. */

export const FEEDBACK_STATUSES = ['confirmed', 'expected', 'not-anomaly'] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

/** Statuses a filter with `hideDismissed` leaves out. */
export const DISMISSED_STATUSES: readonly FeedbackStatus[] = ['expected', 'not-anomaly'];

/** Statuses whose days are kept out of the series' baselines at the next detection. */
export const BASELINE_EXCLUDED_STATUSES: readonly FeedbackStatus[] = ['confirmed', 'not-anomaly'];

/** The stable key of an anomaly record: it survives re-detection (anomaly ids do not). */
export interface FeedbackKey {
  dataViewId: number;
  seriesId: number;
  measure: 'value' | 'count' | 'ratio';
  type: string;
  /** yyyy-MM-dd */
  startDate: string;
}

/** Feedback as it travels on a record (`feedback` of an anomaly record). */
export interface RecordFeedback {
  id: number;
  status: FeedbackStatus;
  note: string;
  /** The author's e-mail (the UI lets the author change it). */
  email: string;
  updatedAt: string;
  /** The incident the feedback was given on (every member of it carries one), or null for a record's own. */
  incidentId: number | null;
}

/** Feedback as the feedback endpoints answer it. */
export interface FeedbackRecord extends FeedbackKey, RecordFeedback {
  /** The record's last day when the feedback was given: the days start..end are the feedback's window. */
  endDate: string;
  createdAt: string;
}

/** The key as one string, e.g. for maps and for the alerts' sent-record memory. */
export function keyString(k: FeedbackKey): string {
  return `${k.dataViewId}:${k.seriesId}:${k.measure ?? 'value'}:${k.type}:${k.startDate}`;
}

export const STATUS_LABELS: Record<FeedbackStatus, string> = {
  confirmed: 'confirmed',
  expected: 'expected',
  'not-anomaly': 'not an anomaly',
};
