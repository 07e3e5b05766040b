/** Shapes the data view use cases take and return (the definition itself lives in ./definition). */
import type { Config } from '../config/config';
import type { Database } from '../db/database';
import type { Clock } from '../shared/clock';
import type { DataViewDefinition, DataViewState } from './definition/index';

/** What the data view use cases need; the Container satisfies it. */
export interface DataViewDeps {
  db: Database;
  clock: Clock;
  config: Pick<Config, 'license' | 'timeZone'>;
}

/** GET /dataviews/{id}: the definition plus the read-only fields. */
export type DataViewDocument = {
  id: number;
  state: DataViewState;
  createdAt: string;
  updatedAt: string;
} & DataViewDefinition;

/** One row of the list, and the answer of every lifecycle action. */
export interface DataViewSummary {
  id: number;
  name: string;
  domain: string;
  description: string;
  tags: string[];
  connector: string;
  state: DataViewState;
  deployed: boolean;
  enabled: boolean;
  deployedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface DataViewLite {
  id: number;
  name: string;
  domain: string;
  state: DataViewState;
}

export interface DataViewListQuery {
  /** Substring of the name, any case. */
  name?: string;
  /** Whole domain, any case. */
  domain?: string;
  /** One tag, any case. */
  tag?: string;
}

/** GET /dataviews/{id}/categories: each category and, once deployed, the values seen in cat_map. */
export interface CategoryInfo {
  name: string;
  label: string;
  parent: string | null;
  values: string[];
  /** True when more than the returned values exist. */
  valuesTruncated: boolean;
}
