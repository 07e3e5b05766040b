/** Filter constants (spec lists) and conversions between the stored record and the editable settings. */
import type { Filter, FilterSettings } from './types';

/** The numeric (nullable) settings: Top N, thresholds and the from/to bounds. */
export type NumKey = {
  [K in keyof FilterSettings]-?: FilterSettings[K] extends number | null ? K : never;
}[keyof FilterSettings];

export const TIME_RANGES = [
  'Custom',
  'Yesterday',
  'Last 2 Days',
  'Last 4 Days',
  'Last 7 Days',
  'Last 15 Days',
  'Last 30 Days',
  'This Week',
  'Previous Week',
  'Previous 2 Weeks',
  'This Month',
  'Previous Month',
  'This Year',
  'Previous Year',
  'This Fiscal Month',
  'Previous Fiscal Month',
  'This Fiscal Quarter',
  'Previous Fiscal Quarter',
  'This Fiscal Year',
  'Previous Fiscal Year',
];

export const SORT_BY = [
  'Duration',
  'Date',
  'SIN',
  'SIM',
  'Anomaly Value',
  'Predicted Value',
  'Change',
  'Change %',
  'Change Cum',
  'Category Share %',
];

/** The anomaly types the spec offers; other codes can still be typed. */
export const ANOMALY_TYPES = ['DT', 'CW', 'ChangePoint', 'DOD', 'Gap', 'MOM', 'MPY', 'WOW', 'Spike', 'QOQ'];

export const NEW_FILTER: FilterSettings = {
  name: '',
  comment: '',
  timeRange: 'Last 30 Days',
  dateFrom: null,
  dateTo: null,
  dataViews: '',
  anomalyTypes: '',
  anomalyResult: 'Positive;Negative',
  categoriesFilter: '',
  sortBy: 'SIN',
  limit: 100,
  isAggregated: false,
  aggregationMode: 'Hierarchical',
  minCommonCategories: 1,
  isSummarized: false,
  instructions: '',
  splitByType: false,
  graphThreshold: 0.5,
  graphWeights: '',
  recurrenceFrom: null,
  recurrenceTo: null,
  changePctFrom: null,
  changePctTo: null,
  changeFrom: null,
  changeTo: null,
  sharePctFrom: null,
  sharePctTo: null,
  measures: 'value;count;ratio',
  // Filters created here show each event once; the API's default (absent) is off.
  mergeEvents: true,
  // Rows marked expected or not an anomaly are hidden (the API's default is to list them).
  hideDismissed: true,
  // Welcome moves (good news for a measure with a bad direction) are left out, as the API does.
  hideWelcome: true,
  // And one row per incident, its root cause named (docs/incidents.md); the API's default is off too.
  incidents: true,
};

/** The writable settings of a stored filter (read-only fields dropped, missing ones defaulted). */
export function settingsOf(f: Partial<Filter>): FilterSettings {
  // A stored filter saved before mergeEvents (or incidents) existed keeps one record per type.
  const out = { ...NEW_FILTER, ...(f.id !== undefined ? { mergeEvents: false, incidents: false } : {}) };
  for (const k of Object.keys(NEW_FILTER) as Array<keyof FilterSettings>) {
    if (f[k] !== undefined) (out as Record<string, unknown>)[k] = f[k];
  }
  return out;
}

/** The body sent to the API: custom dates only with the Custom preset. */
export function bodyOf(s: FilterSettings): FilterSettings {
  const body = { ...s };
  if (body.timeRange !== 'Custom') {
    body.dateFrom = null;
    body.dateTo = null;
  }
  return body;
}

/** `a; b;;c` → ['a', 'b', 'c'] */
export const splitList = (s: string) =>
  s
    .split(';')
    .map((x) => x.trim())
    .filter(Boolean);
