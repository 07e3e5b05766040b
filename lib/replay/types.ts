/** Shapes of a replay: the records compared, the difference, and what the API answers. */
import type { Measure } from '../process-job/anomaly-store';
import type { JobView } from '../jobs/types';

/** One anomaly record as a replay compares it (a stored record, or one the changed definition would publish). */
export interface ReplayRecord {
  seriesId: number;
  measure: Measure;
  type: string;
  /** Position of its detector in analysis.detectors (of the stored or of the replayed definition). */
  detectorIndex: number;
  startDate: string;
  endDate: string;
  duration: number;
  actualValue: number | null;
  predictedValue: number | null;
  changePct: number | null;
  /** Total change over the window (what grouping weighs records by); null when unknown. */
  changeCum: number | null;
  result: 'Positive' | 'Negative';
  /** The stored record's incident (lib/incidents); null for a replayed record or one in no incident. */
  incidentId: number | null;
  /** Category values of the series (null = all); filled for the rows an answer shows. */
  categories?: Record<string, string | null>;
}

/** A record found by both: the same series, measure, type and start, with other days, values or sign. */
export interface ReplayChange {
  before: ReplayRecord;
  after: ReplayRecord;
}

/** Counts of one anomaly type in one measure. */
export interface ReplayTypeCount {
  type: string;
  measure: Measure;
  before: number;
  after: number;
  added: number;
  removed: number;
  changed: number;
}

/**
 * An incident as a replay groups records (lib/replay/incidents.ts): the records of one event by the
 * grouping a cycle uses, not explained and not stored.
 */
export interface ReplayIncident {
  /** The stored incident most of its members belong to; null when none does (a replayed group's match gives it). */
  storedId: number | null;
  result: 'Positive' | 'Negative';
  startDate: string;
  endDate: string;
  /** Number of member records. */
  size: number;
  /** The head's first, then the others by name. */
  measures: string[];
  types: string[];
  /** The strongest record of its broadest series (with its categories). */
  head: ReplayRecord;
  /**
   * A replayed incident of a split, merge or regrouping: the stored incidents it shares records with
   * (their ids; a stored group of records without an incident has none).
   */
  storedIds?: number[];
}

/** One incident found by both sides with other members: how many joined and how many left. */
export interface ReplayIncidentChange {
  before: ReplayIncident;
  after: ReplayIncident;
  joined: number;
  left: number;
}

/**
 * Stored incidents whose records the replayed definition groups otherwise: one into several (`split`),
 * several into one (`merged`), several into several (`regrouped`). Each list newest first.
 */
export interface ReplayIncidentRegroup {
  kind: 'split' | 'merged' | 'regrouped';
  before: ReplayIncident[];
  /** Each with `storedIds`: the stored incidents of `before` it shares records with. */
  after: ReplayIncident[];
}

/** The incidents of the stored records and of the replayed ones, matched by the records they share. */
export interface ReplayIncidentDiff {
  counts: {
    before: number;
    after: number;
    added: number;
    removed: number;
    changed: number;
    unchanged: number;
    /** Entries of `regrouped` by kind. */
    split: number;
    merged: number;
    regrouped: number;
  };
  /** Newest start first, at most the row limit of each list (the counts are whole). */
  added: ReplayIncident[];
  removed: ReplayIncident[];
  changed: ReplayIncidentChange[];
  regrouped: ReplayIncidentRegroup[];
}

/** What a changed definition would do to the view's anomalies, as a replay found it. */
export interface ReplayDiff {
  counts: {
    before: number;
    after: number;
    added: number;
    removed: number;
    changed: number;
    unchanged: number;
  };
  byType: ReplayTypeCount[];
  /** The rows, newest start first, at most `rowLimit` of each list (the counts are whole). */
  added: ReplayRecord[];
  removed: ReplayRecord[];
  changed: ReplayChange[];
  rowLimit: number;
  truncated: boolean;
}

/** The run behind a replay: what it read and how long it took. */
export interface ReplayRun {
  series: number;
  days: number;
  shards: number;
  firstDate: string | null;
  lastDate: string | null;
  measures: Measure[];
  /** yyyy-MM-dd from which records are replaced (scanInLastNDays); null: all of them. */
  replacedFrom: string | null;
  readMs: number;
  detectMs: number;
  ms: number;
}

export interface ReplayResult extends ReplayDiff {
  /** The records of both sides regrouped into incidents, and how those differ. */
  incidents: ReplayIncidentDiff;
  run: ReplayRun;
}

/** GET …/replay/{jobId}: the job (its status) and, once it finished, the difference. */
export interface ReplayAnswer {
  job: JobView;
  result: ReplayResult | null;
}
