/**
 * Shapes of the API records the UI reads, each derived from the types generated out of the schemas the
 * API validates and documents (schemas/*.json, schemas/responses/*.json → api-types.gen.ts): a field
 * renamed or removed in a schema fails the UI's typecheck where the UI used it.
 */
import type * as Api from './api-types.gen';
import type { Filter as FilterBody } from './api-types.gen';

export type DataViewState = Api.DataViewSummary['state'];

/** A data view as the list shows it, whatever list shape the API answers (flat or Fact JSON). */
export type DataViewSummary = Pick<
  Api.DataViewSummary,
  'id' | 'name' | 'domain' | 'description' | 'tags' | 'state'
> & { connector: string; updatedAt?: string };

export type DataViewLite = Api.DataViewLite;

/** A definition (Fact JSON) with the read-only fields the service sets. */
export type DataViewDoc = Omit<Api.Dataview, 'id' | 'state' | 'createdAt' | 'updatedAt'> & {
  id: number;
  state: DataViewState;
  createdAt?: string;
  updatedAt?: string;
};

export type Category = Api.CategoryInfo;

export type JobStatus = Api.Job['status'];
export type Job = Api.Job;

export type ConnectorType = Api.ConnectorType;
export type Connector = Api.ConnectorView;

/** A comment as records carry it. */
export type Comment = Api.AnomalyComment;

/** A record a filter shows (or an event, or an incident row). */
export type Anomaly = Api.FilterAnswerAnomaly;
export type Aggregate = Api.FilterAnswerAggregate;
export type FilterRun = Api.FilterAnswer;

/** A filter field as the API validates it (schemas/filter.schema.json, generated into api-types.gen.ts). */
type FilterField<K extends keyof FilterBody> = Exclude<FilterBody[K], undefined>;

/**
 * The writable filter fields (schemas/filter.schema.json): each is typed from the generated schema
 * type, so a field renamed or removed in the schema fails the UI's typecheck here.
 */
export interface FilterSettings {
  name: FilterField<'name'>;
  comment: FilterField<'comment'>;
  timeRange: FilterField<'timeRange'>;
  dateFrom?: FilterField<'dateFrom'>;
  dateTo?: FilterField<'dateTo'>;
  dataViews: FilterField<'dataViews'>;
  anomalyTypes: FilterField<'anomalyTypes'>;
  anomalyResult: FilterField<'anomalyResult'>;
  categoriesFilter: FilterField<'categoriesFilter'>;
  sortBy: FilterField<'sortBy'>;
  limit: FilterField<'limit'>;
  isAggregated: FilterField<'isAggregated'>;
  aggregationMode: FilterField<'aggregationMode'>;
  minCommonCategories: FilterField<'minCommonCategories'>;
  isSummarized: FilterField<'isSummarized'>;
  instructions: FilterField<'instructions'>;
  splitByType: FilterField<'splitByType'>;
  graphThreshold: FilterField<'graphThreshold'>;
  graphWeights: FilterField<'graphWeights'>;
  recurrenceFrom: FilterField<'recurrenceFrom'>;
  recurrenceTo: FilterField<'recurrenceTo'>;
  changePctFrom: FilterField<'changePctFrom'>;
  changePctTo: FilterField<'changePctTo'>;
  changeFrom: FilterField<'changeFrom'>;
  changeTo: FilterField<'changeTo'>;
  sharePctFrom: FilterField<'sharePctFrom'>;
  sharePctTo: FilterField<'sharePctTo'>;
  /** `value`, `count` or both separated by ';'. */
  measures: FilterField<'measures'>;
  /** One record per event (same series, measure and result, overlapping dates) with its types. */
  mergeEvents: FilterField<'mergeEvents'>;
  /** Leave out records marked expected or not an anomaly (docs/feedback.md). */
  hideDismissed?: FilterField<'hideDismissed'>;
  /** Leave out welcome moves: good news for a measure whose data view names its bad direction. */
  hideWelcome?: FilterField<'hideWelcome'>;
  /** One row per incident, its categories the root cause (docs/incidents.md). */
  incidents?: FilterField<'incidents'>;
}

/** A stored filter: its settings and what the service adds. */
export type Filter = FilterSettings &
  Pick<Api.FilterRecord, 'id' | 'ownerId' | 'ownerEmail' | 'pinned' | 'isOwner' | 'sharedWith' | 'summary'>;

export type User = Api.UserView;

/** A key as listed; `key` only in the answer that created it. */
export type ApiKey = Api.ApiKeyView & Partial<Pick<Api.ApiKeyCreated, 'key'>>;

export type License = Api.LicenseUsage;

export type DataViewStatus = Api.DataviewStatus;
export type JobInfo = Api.JobInfo;
export type LoadSchedule = NonNullable<Api.DataviewStatus['schedule']>;
export type AnomalyIncident = Api.FilterAnswerIncident;
export type ContributionsAnswer = Api.Contributions;
export type ContributionValueAnswer = Api.ContributionValue;
