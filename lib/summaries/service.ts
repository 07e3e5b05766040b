/** Filter summaries: the exact prompt, refresh through the configured model, the stored text; failures keep the previous summary. */
import { type AnomalyDeps, runFilterDefinition } from '../anomalies/run';
import type { Database } from '../db/database';
import { canRead, canReadAll, readableKey } from '../dataviews/scope';
import { callerForUser } from '../identity/authenticate';
import { type Caller, requireRead, requireWrite } from '../identity/caller';
import { type RateLimit, takeRateLimit } from '../identity/rate-limit';
import { loadVisibleFilter } from '../filters/service';
import { parseDataViews } from '../filters/parse';
import {
  builtFrom,
  filterRecipients,
  ownerSummaryMeta,
  recipientSummary,
  storeOwnerSummary,
  storeRecipientSummary,
  summarisedFilters,
  summaryForReader,
} from '../filters/summary-store';
import type { FilterDefinition } from '../filters/types';
import type { SecretStore } from '../secrets/index';
import { AppError, ConflictError, TooManyRequestsError } from '../shared/errors';
import type { Logger } from '../shared/logger';
import { forEachBounded, roundRobin } from '../shared/bounded';
import { deadline } from '../shared/deadline';
import { checkCitations, type IncidentRef } from './citations';
import { callModel, type LlmAnswer, type LlmEndpoint } from './llm-client';
import { type BuiltPrompt, buildPrompt, DEFAULT_PROMPT_BUDGET } from './prompt';
import { hasEndpoint, loadEndpoint } from './settings';

export interface SummaryDeps extends AnomalyDeps {
  db: Database;
  secrets: SecretStore;
  /** Replaceable in tests; the real client by default. */
  call?: (endpoint: LlmEndpoint, values: { instructions: string; prompt: string }) => Promise<LlmAnswer>;
  log?: Logger;
  /** Refreshes one user may ask for per hour (each calls the model, which costs money and time). */
  refreshesPerHour?: number;
}

/** The default of SUMMARY_REFRESHES_PER_HOUR. */
export const DEFAULT_REFRESHES_PER_HOUR = 30;

export interface StoredSummary {
  filterId: number;
  text: string | null;
  generatedAt: string | null;
  meta: Record<string, unknown> | null;
  lastError: string | null;
  /** Whether a language-model endpoint is configured (GET only): without one, refresh answers 409. */
  modelConfigured?: boolean;
  /** Why no text is shown although a summary exists: it covers data views the reader cannot read. */
  withheld?: string;
  /** What the text cites (checked against its prompt when stored); null for summaries stored before citations. */
  citations?: SummaryCitations | null;
}

/** The citations of a stored summary (docs/summaries.md, "Citations"). */
export interface SummaryCitations {
  incidents: IncidentRef[];
  anomalies: number[];
  /** Citations of what the prompt did not hold, as the model wrote them: removed from the stored text. */
  removed: string[];
}

function citationsOf(meta: Record<string, unknown> | null): SummaryCitations | null {
  const c = meta?.citations as SummaryCitations | undefined;
  return c && Array.isArray(c.incidents) ? c : null;
}

/** What `caller` sees: the owner's summary, or a recipient's own, only when built from views they can read. */
async function readStored(db: Database, caller: Caller, filterId: number): Promise<StoredSummary> {
  const stored = await summaryForReader(db, caller, filterId);
  return { filterId, ...stored, citations: citationsOf(stored.meta) };
}

/** GET /{id}/summarization: the stored text, when it was made, the answer's metadata and the last failure. */
export async function getSummary(
  deps: SummaryDeps,
  caller: Caller,
  filterId: number,
): Promise<StoredSummary> {
  requireRead(caller);
  await loadVisibleFilter(deps.db, caller, filterId);
  return { ...(await readStored(deps.db, caller, filterId)), modelConfigured: await hasEndpoint(deps.db) };
}

/** GET /{id}/summarization/prompt: the prompt that would be sent now, with what was left out. */
export async function getSummaryPrompt(
  deps: SummaryDeps,
  caller: Caller,
  filterId: number,
  instructions?: string | null,
): Promise<BuiltPrompt & { filterId: number; dataViewIds: number[] }> {
  requireRead(caller);
  const row = await loadVisibleFilter(deps.db, caller, filterId);
  const definition = { ...(row.settings as unknown as FilterDefinition), name: row.name };
  const endpoint = await loadEndpoint(deps);
  const answer = await runFilterDefinition(deps, caller, definition, false, { recordIncidents: true });
  // A recipient's prompt names only the data views they can read (those the run used).
  const shown =
    row.ownerId === caller.userId || !definition.dataViews
      ? definition
      : { ...definition, dataViews: answer.dataViews.map((v) => v.dataView).join('; ') };
  const built = buildPrompt({
    filter: shown,
    range: { dateFrom: answer.timeRange.dateFrom, dateTo: answer.timeRange.dateTo },
    anomalies: answer.anomalies,
    aggregates: answer.aggregates,
    incidents: new Map(Object.entries(answer.recordIncidents ?? {})),
    instructions: instructions ?? definition.instructions ?? '',
    budgetChars: endpoint?.promptBudgetChars ?? DEFAULT_PROMPT_BUDGET,
  });
  // The caller's own visibility: a recipient's prompt holds only the data views they can read.
  return { filterId, ...built, dataViewIds: answer.dataViews.map((v) => v.id) };
}

/**
 * POST /{id}/summarization/refresh: builds the prompt from the data views the caller can read, calls the model
 * and stores the text; on failure keeps the previous one. The owner's refresh is the filter's summary; a
 * recipient's is kept for that recipient only, so it never changes what the owner and the others see.
 */
export async function refreshSummary(
  deps: SummaryDeps,
  caller: Caller,
  filterId: number,
  instructions?: string | null,
): Promise<StoredSummary> {
  requireWrite(caller);
  const row = await loadVisibleFilter(deps.db, caller, filterId);
  const isOwner = row.ownerId === caller.userId;
  try {
    const endpoint = await loadEndpoint(deps);
    if (!endpoint) {
      throw new ConflictError(
        'No language-model endpoint is configured: an administrator sets it under Settings → AI summaries.',
      );
    }
    // Counted before the model is called, per user over all filters: a 429 leaves the stored summary as it is.
    const limit: RateLimit = {
      max: deps.refreshesPerHour ?? DEFAULT_REFRESHES_PER_HOUR,
      windowSeconds: 3600,
    };
    await takeRateLimit(
      deps.db,
      `summary-refresh:user:${caller.userId}`,
      limit,
      deps.clock.now(),
      'summary refreshes',
    );
    const built = await getSummaryPrompt(deps, caller, filterId, instructions);
    const answer = await (deps.call ?? callModel)(endpoint, {
      instructions: built.instructions,
      prompt: built.prompt,
    });
    const now = deps.clock.now();
    // Only what the prompt held may be cited: anything else is taken out of the text before it is stored.
    const checked = checkCitations(answer.text, built.citable);
    const meta = {
      ...answer.meta,
      promptChars: built.chars,
      anomalies: built.anomaliesIncluded,
      incidents: built.incidentsIncluded,
      aggregates: built.aggregatesIncluded,
      leftOut: built.leftOut,
      instructionsOverridden: instructions !== undefined && instructions !== null,
      dataViewIds: built.dataViewIds,
      citations: { incidents: checked.incidents, anomalies: checked.anomalies, removed: checked.removed },
    };
    if (checked.removed.length)
      deps.log?.warn('summary cited what its prompt did not hold', { filterId, removed: checked.removed });
    const summary = { text: checked.text, generatedAt: now, meta };
    if (isOwner) await storeOwnerSummary(deps.db, filterId, summary);
    else await storeRecipientSummary(deps.db, filterId, caller.userId, summary);
    return readStored(deps.db, caller, filterId);
  } catch (e) {
    // Refused for the rate only: nothing was tried, so the stored summary and its last error stay as they were.
    if (e instanceof TooManyRequestsError) throw e;
    const message =
      e instanceof AppError ? e.message : 'The summary could not be generated (unexpected error).';
    if (isOwner) await storeOwnerSummary(deps.db, filterId, { error: message });
    else await storeRecipientSummary(deps.db, filterId, caller.userId, { error: message });
    if (!(e instanceof AppError)) deps.log?.error('summary refresh failed', { filterId, error: e });
    throw e;
  }
}

/**
 * The recipients of a filter who cannot read every data view of the owner's summary get one built from what they
 * can read: generated once per distinct visibility (set of readable views) and stored for each of them.
 */
async function regenerateForRecipients(deps: SummaryDeps, filterId: number): Promise<void> {
  const ids = builtFrom(await ownerSummaryMeta(deps.db, filterId));
  const done = new Map<string, number>();
  for (const userId of await filterRecipients(deps.db, filterId)) {
    const recipient = await callerForUser(deps.db, userId);
    if (!recipient || canReadAll(recipient, ids)) continue;
    const key = readableKey(recipient);
    const first = done.get(key);
    if (first === undefined) {
      done.set(key, recipient.userId);
      await refreshSummary(deps, recipient, filterId).catch(() => {});
      continue;
    }
    const copy = await recipientSummary(deps.db, filterId, first);
    if (copy) await storeRecipientSummary(deps.db, filterId, recipient.userId, copy);
  }
}

/**
 * After a successful load and detection cycle of a data view: regenerate, as their owners, the summaries
 * of every summarised filter over that view (a filter without data views covers all the owner's views).
 */
/** A summarised filter's regeneration after a cycle: refreshed, failed, or skipped at the end of the budget. */
export interface SummaryCycleResult {
  filterId: number;
  ok: boolean;
  error?: string;
  skipped?: boolean;
}

/** Summaries regenerated at once after a cycle, and the time they may take together (then the rest wait). */
export const SUMMARY_CONCURRENCY = 2;
export const SUMMARY_BUDGET_MS = 120_000;

export async function regenerateSummariesForView(
  deps: SummaryDeps,
  dataView: { id: number; domain: string; name: string },
  options: { signal?: AbortSignal; concurrency?: number; budgetMs?: number } = {},
): Promise<SummaryCycleResult[]> {
  const due: Array<{ filterId: number; owner: Caller }> = [];
  for (const row of await summarisedFilters(deps.db)) {
    const settings = row.settings;
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
    const owner = await callerForUser(deps.db, row.ownerId);
    if (!owner) continue;
    if (refs.length === 0 && !canRead(owner, dataView.id)) continue;
    due.push({ filterId: row.id, owner });
  }
  // A few at a time, one owner's filters in turn with the others', within the cycle's budget: what has
  // not started when it ends waits for the next cycle (or a refresh), so no owner's slow language model
  // holds the detection job.
  const budget = deadline(options.budgetMs ?? SUMMARY_BUDGET_MS, options.signal);
  try {
    const results = await forEachBounded(
      roundRobin(due, (d) => d.owner.userId),
      options.concurrency ?? SUMMARY_CONCURRENCY,
      async ({ filterId, owner }): Promise<SummaryCycleResult> => {
        try {
          await refreshSummary(deps, owner, filterId);
        } catch (e) {
          return { filterId, ok: false, error: (e as Error).message };
        }
        await regenerateForRecipients(deps, filterId).catch((e) =>
          deps.log?.warn('recipient summaries not regenerated', { filterId, error: e }),
        );
        return { filterId, ok: true };
      },
      ({ filterId }): SummaryCycleResult => ({
        filterId,
        ok: false,
        skipped: true,
        error: 'not refreshed in this cycle: its time budget ended (the next cycle or a refresh does it)',
      }),
      budget.signal,
    );
    const skipped = results.filter((r) => r.skipped).length;
    if (skipped > 0)
      deps.log?.warn('summaries left for the next cycle: the time budget ended', {
        dataViewId: dataView.id,
        skipped,
        refreshed: results.length - skipped,
      });
    return results;
  } finally {
    budget.clear();
  }
}
