/** Incidents as the rest of the service reads them (docs/incidents.md). */

/** A category combination: category name → value, null = all. */
export type Categories = Record<string, string | null>;

export interface IncidentCause {
  /** The series of the combination (every combination below a series is one of the cube's series). */
  seriesId: number | null;
  categories: Categories;
  actual: number;
  expected: number;
  change: number;
  /** Percent points; null when nothing was expected. */
  changePct: number | null;
  /** Share of the broad series' change this combination's change is, in percent points. */
  explainsPct: number;
  /** True when no smaller set explains the change: the broad series itself is the root cause. */
  broad: boolean;
  /**
   * Only for an incident headed by a ratio: `rate` when the combination's rate moved, `mix` when the shares
   * of the segments moved (the combination is then the broad series, `mixOf` the category whose shares moved
   * most). Figures are per event.
   */
  effect?: 'rate' | 'mix';
  mixOf?: string;
}

export interface IncidentBroad {
  seriesId: number;
  categories: Categories;
  actual: number;
  expected: number;
  change: number;
  changePct: number | null;
}

/** One stored incident of a view. */
export interface Incident {
  id: number;
  dataViewId: number;
  result: 'Positive' | 'Negative';
  /** The head record's measure first, then the others that moved. */
  measures: string[];
  /** The head record's type first, then the others by name. */
  types: string[];
  /** The members' days (yyyy-MM-dd). */
  startDate: string;
  endDate: string;
  /** Number of member records. */
  size: number;
  broad: IncidentBroad;
  rootCauses: IncidentCause[];
  /** The head record's stable key (series, measure, type, start date). */
  head: { seriesId: number; measure: string; type: string; startDate: string };
  /** When the incident was first seen, and by which process job. */
  firstSeenAt: string;
  firstSeenJobId: number | null;
}
