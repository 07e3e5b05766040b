/** Deployed data views written straight into the service database, for pipeline and job tests. */
import { eq } from 'drizzle-orm';
import { createDataset, schemaNameFor } from '../../lib/dataset/ddl';
import type { Database } from '../../lib/db/database';
import { dataViews } from '../../lib/db/tables/dataviews';
import type { DataViewDefinition } from '../../lib/dataviews/definition/types';

export interface ViewOptions {
  name?: string;
  domain?: string;
  loadQuery: string;
  customLoadQuery?: string;
  loadMode?: 'full' | 'incremental';
  categories: Array<{ name: string; parent?: string }>;
  fillGapMethod?: 'zero' | 'linear' | 'previous';
  dateColumn?: string;
  valueColumn?: string;
  countColumn?: string;
  cron?: string;
  enabled?: boolean;
  deployed?: boolean;
}

export function definitionOf(o: ViewOptions): DataViewDefinition {
  return {
    schemaVersion: 3,
    metadata: { name: o.name ?? 'sales', domain: o.domain ?? 'retail' },
    source: {
      connector: 'test_source',
      dateColumn: o.dateColumn ?? 'day',
      valueColumn: o.valueColumn ?? 'amount',
      ...(o.countColumn ? { countColumn: o.countColumn } : {}),
      loadMode: o.loadMode ?? 'full',
      trigger: o.cron ? 'cron' : 'api',
      ...(o.cron ? { cron: o.cron } : {}),
      loadQuery: o.loadQuery,
      ...(o.customLoadQuery ? { customLoadQuery: o.customLoadQuery } : {}),
    },
    categories: o.categories.map((c) => ({
      name: c.name,
      label: c.name,
      ...(c.parent ? { parent: c.parent } : {}),
    })),
    analysis: {
      fillGapMethod: o.fillGapMethod ?? 'zero',
      ignoreLastNDays: 0,
      scanInLastNDays: 0,
      detectors: [],
      specialDates: [],
      recurringRules: [],
      specialPeriods: [],
    },
  };
}

/** Inserts the view (deployed and enabled unless told otherwise) and creates its dataset; returns its id. */
export async function createDeployedView(db: Database, o: ViewOptions): Promise<number> {
  const def = definitionOf(o);
  const [row] = await db.orm
    .insert(dataViews)
    .values({
      name: def.metadata.name,
      domain: def.metadata.domain,
      connector: def.source.connector,
      definition: def as unknown as Record<string, unknown>,
      deployed: o.deployed ?? true,
      enabled: o.enabled ?? true,
    })
    .returning();
  if (o.deployed ?? true) {
    await db.tx((tx) => createDataset(tx, schemaNameFor(row.id), { categories: def.categories }));
    await db.orm
      .update(dataViews)
      .set({ schemaName: schemaNameFor(row.id), deployedAt: new Date() })
      .where(eq(dataViews.id, row.id));
  }
  return row.id;
}
