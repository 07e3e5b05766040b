/** Data views inserted straight into the service database, callers built by hand, and comment bodies. */
import type { CommentInput } from '../../../lib/comments/service';
import type { Database } from '../../../lib/db/database';
import { dataViews } from '../../../lib/db/tables/dataviews';
import type { Caller, Permission } from '../../../lib/identity/caller';

let counter = 0;

/** A data view row whose definition has the given categories (as the definition spells them). */
export async function insertDataView(
  db: Database,
  categories: string[] = ['Country', 'Product'],
): Promise<number> {
  counter += 1;
  const name = `view_${counter}_${Math.random().toString(36).slice(2, 8)}`;
  const [row] = await db.orm
    .insert(dataViews)
    .values({
      name,
      domain: 'sales',
      connector: 'demo_pgsql',
      definition: {
        schemaVersion: 3,
        metadata: { name, domain: 'sales' },
        categories: categories.map((c) => ({ name: c, label: c })),
      },
    })
    .returning({ id: dataViews.id });
  return row.id;
}

export function adminCaller(email = 'admin@example.com'): Caller {
  return {
    userId: 1,
    email,
    role: 'admin',
    permissions: new Set<Permission>(['read', 'write', 'process', 'admin']),
    via: 'token',
    dataViews: 'all',
  };
}

/** A signed-in data user (Bearer token) who sees exactly `views`. */
export function dataUserCaller(email: string, views: number[], via: Caller['via'] = 'token'): Caller {
  return {
    userId: 2,
    email,
    role: 'data-user',
    permissions: new Set<Permission>(['read', 'write', 'process']),
    via,
    dataViews: new Set(views),
  };
}

export function body(dataViewId: number, extra: Partial<CommentInput> = {}): CommentInput {
  return {
    text: 'Promotion week',
    email: 'author@example.com',
    dataViewId,
    dateFrom: '2024-03-01',
    dateTo: '2024-03-07',
    ...extra,
  };
}
