/** Connector use cases (admin only): create, read masked, update, delete, test, preview, and opening a source for loads. */
import type { Database } from '../db/database';
import { type Caller, requireAdmin } from '../identity/caller';
import { connectorSecretName } from '../secrets/index';
import { ConflictError, NotFoundError, UpstreamError, ValidationError } from '../shared/errors';
import type { Clock } from '../shared/clock';
import type { Logger } from '../shared/logger';
import { toDriverConfig } from './conn-string/index';
import { maskConfiguration, scrubSecrets, secretsOf } from './masking';
import {
  type ConnectorRow,
  deleteConnectorRow,
  findConnector,
  insertConnector,
  listConnectorRows,
  updateConnectorRow,
} from './repository';
import { openSource } from './open-source';
import type { PreviewResult, SourceConnector } from './source-port';
import type { ConnectorType } from './types';

/** Where connector configurations are kept: the returned reference is what the database stores. */
export interface ConnectorSecrets {
  put(name: string, value: string): Promise<string>;
  get(ref: string): Promise<string>;
  delete(ref: string): Promise<void>;
}

export interface ConnectorDeps {
  db: Database;
  secrets: ConnectorSecrets;
  clock: Clock;
  timeoutMs: number;
  /** Bound of a preview's query (an API path); default the load's, max(timeoutMs, 5 min). */
  apiQueryTimeoutMs?: number;
  log?: Logger;
}

/** `<domain> / <name>` of the data views that load from the connector (lib/dataviews answers it). */
export type ViewsUsingConnector = (db: Database, connector: string) => Promise<string[]>;

export interface ConnectorView {
  name: string;
  type: ConnectorType;
  description: string;
  configuration: Record<string, unknown>;
  status: 'untested' | 'active' | 'failed';
  lastTestedAt: string | null;
  lastTestMessage: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface ConnectorInput {
  name?: string;
  type?: ConnectorType;
  description?: string;
  configuration?: Record<string, unknown>;
}

export interface TestResult {
  name: string;
  status: 'active' | 'failed';
  ok: boolean;
  message: string;
  testedAt: string;
  ms: number;
}

function view(row: ConnectorRow): ConnectorView {
  return {
    name: row.name,
    type: row.type as ConnectorType,
    description: row.description,
    configuration: row.maskedConfiguration,
    status: row.status,
    lastTestedAt: row.lastTestedAt?.toISOString() ?? null,
    lastTestMessage: row.lastTestMessage,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

async function mustFind(db: Database, name: string): Promise<ConnectorRow> {
  const row = await findConnector(db, name);
  if (!row) throw new NotFoundError(`Connector ${name} was not found.`);
  return row;
}

export async function listConnectors(deps: ConnectorDeps, caller: Caller): Promise<ConnectorView[]> {
  requireAdmin(caller);
  return (await listConnectorRows(deps.db)).map(view);
}

export async function getConnector(
  deps: ConnectorDeps,
  caller: Caller,
  name: string,
): Promise<ConnectorView> {
  requireAdmin(caller);
  return view(await mustFind(deps.db, name));
}

export async function createConnector(
  deps: ConnectorDeps,
  caller: Caller,
  input: ConnectorInput,
): Promise<ConnectorView> {
  requireAdmin(caller);
  const name = input.name!;
  const type = input.type!;
  const configuration = input.configuration ?? {};
  toDriverConfig(type, configuration); // a malformed configuration is the caller's 400, before anything is stored
  if (await findConnector(deps.db, name))
    throw new ConflictError(`A connector named ${name} already exists.`);
  const ref = await deps.secrets.put(connectorSecretName(name), JSON.stringify(configuration));
  try {
    return view(
      await insertConnector(deps.db, {
        name,
        type,
        description: input.description ?? '',
        secretRef: ref,
        maskedConfiguration: maskConfiguration(type, configuration),
      }),
    );
  } catch (e) {
    await deps.secrets.delete(ref).catch(() => {});
    if (String((e as Error).message).includes('connectors_name_key')) {
      throw new ConflictError(`A connector named ${name} already exists.`);
    }
    throw e;
  }
}

/** Updates description, type and configuration; an absent configuration keeps the stored secret. */
export async function updateConnector(
  deps: ConnectorDeps,
  caller: Caller,
  name: string,
  input: ConnectorInput,
): Promise<ConnectorView> {
  requireAdmin(caller);
  const row = await mustFind(deps.db, name);
  if (input.name !== undefined && input.name.toLowerCase() !== row.name.toLowerCase()) {
    throw ValidationError.field(
      'name',
      `must equal the connector in the path (${row.name}); connectors cannot be renamed`,
    );
  }
  const type = input.type ?? (row.type as ConnectorType);
  const patch: Parameters<typeof updateConnectorRow>[2] = {};
  if (input.description !== undefined) patch.description = input.description;
  if (input.configuration !== undefined) {
    toDriverConfig(type, input.configuration);
    patch.secretRef = await deps.secrets.put(
      connectorSecretName(row.name),
      JSON.stringify(input.configuration),
    );
    patch.maskedConfiguration = maskConfiguration(type, input.configuration);
    patch.status = 'untested';
    patch.lastTestMessage = null;
  } else if (type !== row.type) {
    throw ValidationError.field('configuration', 'is required when the type changes');
  }
  patch.type = type;
  const updated = await updateConnectorRow(deps.db, row.id, patch);
  if (patch.secretRef && patch.secretRef !== row.secretRef)
    await deps.secrets.delete(row.secretRef).catch(() => {});
  return view(updated);
}

/** DELETE /connectors/{name}: refused (409) while a data view loads from it; its secret goes with it. */
export async function deleteConnector(
  deps: ConnectorDeps & { viewsUsing: ViewsUsingConnector },
  caller: Caller,
  name: string,
): Promise<void> {
  requireAdmin(caller);
  const row = await mustFind(deps.db, name);
  const users = await deps.viewsUsing(deps.db, row.name);
  if (users.length) {
    throw new ConflictError(
      `Connector ${row.name} is used by data view(s) ${users.join(', ')}; change or delete them first.`,
    );
  }
  await deleteConnectorRow(deps.db, row.id);
  await deps.secrets.delete(row.secretRef).catch(() => {});
}

async function configurationOf(deps: ConnectorDeps, row: ConnectorRow): Promise<Record<string, unknown>> {
  return JSON.parse(await deps.secrets.get(row.secretRef)) as Record<string, unknown>;
}

/** Opens the source database of a connector by name (for loads and previews); the caller closes it. */
export async function openNamedSource(
  deps: ConnectorDeps,
  name: string,
  options: { queryTimeoutMs?: number } = {},
): Promise<SourceConnector> {
  const row = await mustFind(deps.db, name);
  const configuration = await configurationOf(deps, row);
  return openSource(row.type as ConnectorType, configuration, { timeoutMs: deps.timeoutMs, ...options });
}

async function runTest(deps: ConnectorDeps, row: ConnectorRow): Promise<TestResult> {
  const started = Date.now();
  let ok = false;
  let message: string;
  let secrets: string[] = [];
  try {
    const configuration = await configurationOf(deps, row);
    secrets = secretsOf(configuration);
    const source = openSource(row.type as ConnectorType, configuration, { timeoutMs: deps.timeoutMs });
    try {
      await source.test();
    } finally {
      await source.close().catch(() => {});
    }
    ok = true;
    message = 'Connection succeeded.';
  } catch (e) {
    const text =
      e instanceof UpstreamError || e instanceof ValidationError
        ? e.message
        : 'The test failed unexpectedly.';
    message = scrubSecrets(text, secrets);
    if (!(e instanceof UpstreamError || e instanceof ValidationError)) {
      deps.log?.error('connector test failed unexpectedly', {
        connector: row.name,
        error: scrubSecrets(String(e), secrets),
      });
    }
  }
  const testedAt = deps.clock.now();
  const status = ok ? 'active' : 'failed';
  await updateConnectorRow(deps.db, row.id, { status, lastTestedAt: testedAt, lastTestMessage: message });
  return { name: row.name, status, ok, message, testedAt: testedAt.toISOString(), ms: Date.now() - started };
}

/** Tests one connector: success makes it active (green), anything else failed (red) with a message free of secrets. */
export async function testConnector(deps: ConnectorDeps, caller: Caller, name: string): Promise<TestResult> {
  requireAdmin(caller);
  return runTest(deps, await mustFind(deps.db, name));
}

/** The schedule's automatic test of every connector, one after the other. */
export async function testAllConnectors(deps: ConnectorDeps): Promise<TestResult[]> {
  const results: TestResult[] = [];
  for (const row of await listConnectorRows(deps.db)) results.push(await runTest(deps, row));
  return results;
}

/** Sample data preview: the first 10 rows of a query through a named connector. */
export async function previewQuery(
  deps: ConnectorDeps,
  caller: Caller,
  name: string,
  query: string,
  limit = 10,
): Promise<PreviewResult> {
  requireAdmin(caller);
  const source = await openNamedSource(deps, name, { queryTimeoutMs: deps.apiQueryTimeoutMs });
  try {
    return await source.preview(query, Math.min(Math.max(limit, 1), 10));
  } finally {
    await source.close().catch(() => {});
  }
}

/** Start-up check: every stored connector secret must decrypt with the configured key, else the service must not start. */
export async function verifyStoredSecrets(deps: Pick<ConnectorDeps, 'db' | 'secrets'>): Promise<void> {
  for (const row of await listConnectorRows(deps.db)) {
    try {
      await deps.secrets.get(row.secretRef);
    } catch (e) {
      throw new Error(
        `the configured MASTER_KEY cannot decrypt the secret of connector ${row.name}: ${(e as Error).message}. ` +
          'Start with the key these secrets were written with.',
      );
    }
  }
}
