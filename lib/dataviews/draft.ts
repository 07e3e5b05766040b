/**
 * A definition as the service would store it: parsed (JSON or YAML), validated, unique, and — when it
 * replaces a deployed view — without changes to the locked fields. Save runs it; so does the
 * editor's check as you type and `service-cli apply`'s plan, so that all three refuse the same things
 * with the same words.
 */
import type { Database } from '../db/database';
import { type Caller, requireAdmin } from '../identity/caller';
import { AppError } from '../shared/errors';
import { checkDefinition } from './checked-definition';
import { compactDefinition } from './definition/compact';
import { type DataViewDefinition, lockedFieldsChanged, parseDefinitionBody } from './definition/index';
import { label } from './present';
import { domainNameTaken } from './repository';
import { readView } from './scope';
import type { DataViewDeps } from './types';
import type { DataViewRecord } from './views';

/** 409 naming metadata.name when another view has this domain and name. */
async function assertUnique(db: Database, def: DataViewDefinition, exceptId?: number): Promise<void> {
  const { domain, name } = def.metadata;
  if (await domainNameTaken(db, domain, name, exceptId)) {
    throw new AppError(
      'CONFLICT',
      `A data view ${domain}/${name} already exists; choose another name or domain.`,
      { errors: [{ path: 'metadata.name', message: `another data view is named ${domain}/${name}` }] },
    );
  }
}

/** 409 listing the locked fields (name, domain, categories) that differ from the deployed view's. */
function assertUnlocked(row: DataViewRecord, def: DataViewDefinition): void {
  if (!row.deployed) return;
  const locked = lockedFieldsChanged(row.definition, def);
  if (locked.length === 0) return;
  throw new AppError(
    'CONFLICT',
    `Data view ${label(row)} is deployed: ${locked.join(', ')} cannot be changed. Delete the deployment first.`,
    { errors: locked.map((path) => ({ path, message: 'cannot change while the data view is deployed' })) },
  );
}

/** The definition `body` would store, as a new view or in place of `existing`; throws what saving would. */
export async function checkDraft(
  db: Database,
  body: unknown,
  existing?: DataViewRecord,
): Promise<DataViewDefinition> {
  const def = await checkDefinition(db, parseDefinitionBody(body));
  if (existing) assertUnlocked(existing, def);
  await assertUnique(db, def, existing?.id);
  return def;
}

export interface DraftCheck {
  valid: true;
  /** The definition as it would be stored: every default filled in. */
  definition: DataViewDefinition;
  /** The same with only what differs from the defaults. */
  compact: Record<string, unknown>;
}

/**
 * POST /dataviews/validate[?id=]: the checks of a save without saving — 400 (or 409) with every field
 * at fault, else the definition that would be stored. With `id`, as an update of that view.
 */
export async function validateDraft(
  deps: Pick<DataViewDeps, 'db'>,
  caller: Caller,
  body: unknown,
  id?: number,
): Promise<DraftCheck> {
  requireAdmin(caller);
  const existing = id === undefined ? undefined : await readView(caller, deps.db, id);
  const definition = await checkDraft(deps.db, body, existing);
  return { valid: true, definition, compact: compactDefinition(definition) };
}
