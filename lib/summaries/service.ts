/** Filter summaries: the exact prompt, refresh through the configured model, the stored text; failures keep the previous summary. */
import { eq, sql } from 'drizzle-orm';
import { type AnomalyDeps, runFilterDefinition } from '../anomalies/run';
import type { Database } from '../db/database';
import { filters } from '../db/tables/index';
import { callerForUser } from '../identity/authenticate';
import { type Caller, requireRead } from '../identity/caller';
import { loadVisibleFilter } from '../filters/service';
import { parseDataViews } from '../filters/parse';
import type { FilterDefinition } from '../filters/types';
import type { SecretStore } from '../secrets/index';
import { AppError, ConflictError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { callModel, type LlmAnswer, type LlmEndpoint } from './llm-client';
import { type BuiltPrompt, buildPrompt, DEFAULT_PROMPT_BUDGET } from './prompt';
import { hasEndpoint, loadEndpoint } from './settings';

export interface SummaryDeps extends AnomalyDeps {
  db: Database;
  secrets: SecretStore;
  /** Replaceable in tests; the real client by default. */
  call?: (endpoint: LlmEndpoint, values: { instructions: string; prompt: string }) => Promise<LlmAnswer>;
  log?: Logger;
}

export interface StoredSummary {
  filterId: number;
  text: string | null;
  generatedAt: string | null;
  meta: Record<string, unknown> | null;
  lastError: string | null;
  /** Whether a language-model endpoint is configured (GET only): without one, refresh answers 409. */
  modelConfigured?: boolean;
}

async function readStored(db: Database, filterId: number): Promise<StoredSummary> {
  const [row] = await db.orm.select().from(filters).where(eq(filters.id, filterId));
  return {
    filterId,
    text: row?.summaryText ?? null,
    generatedAt: row?.summaryGeneratedAt?.toISOString() ?? null,
    meta: row?.summaryMeta ?? null,
    lastError: row?.summaryError ?? null,
  };
}

/** GET /{id}/summarization: the stored text, when it was made, the answer's metadata and the last failure. */
export async function getSummary(
  deps: SummaryDeps,
  caller: Caller,
  filterId: number,
): Promise<StoredSummary> {
  requireRead(caller);
  await loadVisibleFilter(deps.db, caller, filterId);
  return { ...(await readStored(deps.db, filterId)), modelConfigured: await hasEndpoint(deps.db) };
}

/** GET /{id}/summarization/prompt: the prompt that would be sent now, with what was left out. */
export async function getSummaryPrompt(
  deps: SummaryDeps,
  caller: Caller,
  filterId: number,
  instructions?: string | null,
): Promise<BuiltPrompt & { filterId: number }> {
  requireRead(caller);
  const row = await loadVisibleFilter(deps.db, caller, filterId);
  const definition = { ...(row.settings as unknown as FilterDefinition), name: row.name };
  const endpoint = await loadEndpoint(deps);
  const answer = await runFilterDefinition(deps, caller, definition, false);
  const built = buildPrompt({
    filter: definition,
    range: { dateFrom: answer.timeRange.dateFrom, dateTo: answer.timeRange.dateTo },
    anomalies: answer.anomalies,
    aggregates: answer.aggregates,
    instructions: instructions ?? definition.instructions ?? '',
    budgetChars: endpoint?.promptBudgetChars ?? DEFAULT_PROMPT_BUDGET,
  });
  return { filterId, ...built };
}

async function recordFailure(db: Database, filterId: number, message: string): Promise<void> {
  await db.orm.update(filters).set({ summaryError: message }).where(eq(filters.id, filterId));
}

/** POST /{id}/summarization/refresh: builds the prompt, calls the model and stores the text; on failure keeps the previous one. */
export async function refreshSummary(
  deps: SummaryDeps,
  caller: Caller,
  filterId: number,
  instructions?: string | null,
): Promise<StoredSummary> {
  requireRead(caller);
  await loadVisibleFilter(deps.db, caller, filterId);
  try {
    const endpoint = await loadEndpoint(deps);
    if (!endpoint) {
      throw new ConflictError(
        'No language-model endpoint is configured: an administrator sets it under Settings → AI summaries.',
      );
    }
    const built = await getSummaryPrompt(deps, caller, filterId, instructions);
    const answer = await (deps.call ?? callModel)(endpoint, {
      instructions: built.instructions,
      prompt: built.prompt,
    });
    const now = deps.clock.now();
    await deps.db.orm
      .update(filters)
      .set({
        summaryText: answer.text,
        summaryGeneratedAt: now,
        summaryError: null,
        summaryMeta: {
          ...answer.meta,
          promptChars: built.chars,
          anomalies: built.anomaliesIncluded,
          aggregates: built.aggregatesIncluded,
          leftOut: built.leftOut,
          instructionsOverridden: instructions !== undefined && instructions !== null,
        },
      })
      .where(eq(filters.id, filterId));
    return readStored(deps.db, filterId);
  } catch (e) {
    const message =
      e instanceof AppError ? e.message : 'The summary could not be generated (unexpected error).';
    await recordFailure(deps.db, filterId, message);
    if (!(e instanceof AppError)) deps.log?.error('summary refresh failed', { filterId, error: e });
    throw e;
  }
}

/**
 * After a successful load and detection cycle of a data view: regenerate, as their owners, the summaries
 * of every summarised filter over that view (a filter without data views covers all the owner's views).
 */
export async function regenerateSummariesForView(
  deps: SummaryDeps,
  dataView: { id: number; domain: string; name: string },
): Promise<Array<{ filterId: number; ok: boolean; error?: string }>> {
  const rows = await deps.db.rows<{
    id: number;
    owner_id: number;
    settings: Record<string, unknown> | string;
  }>(
    sql`SELECT id, owner_id, settings FROM filters WHERE (settings->>'isSummarized')::boolean IS TRUE ORDER BY id`,
  );
  const results: Array<{ filterId: number; ok: boolean; error?: string }> = [];
  for (const row of rows) {
    const settings = (
      typeof row.settings === 'string' ? JSON.parse(row.settings) : row.settings
    ) as FilterDefinition;
    let refs: Array<{ domain: string; name: string }> = [];
    try {
      refs = parseDataViews(settings.dataViews ?? '');
    } catch {
      continue;
    }
    const covers =
      refs.length === 0 ||
      refs.some(
        (r) =>
          r.domain.toLowerCase() === dataView.domain.toLowerCase() &&
          r.name.toLowerCase() === dataView.name.toLowerCase(),
      );
    if (!covers) continue;
    const owner = await callerForUser(deps.db, row.owner_id);
    if (!owner) continue;
    if (refs.length === 0 && owner.dataViews !== 'all' && !owner.dataViews.has(dataView.id)) continue;
    try {
      await refreshSummary(deps, owner, row.id);
      results.push({ filterId: row.id, ok: true });
    } catch (e) {
      results.push({ filterId: row.id, ok: false, error: (e as Error).message });
    }
  }
  return results;
}
