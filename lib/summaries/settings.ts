/** The one global language-model endpoint (admin): stored in `settings`, its headers encrypted, never returned in clear. */
import type { Database } from '../db/database';
import { type Caller, requireAdmin } from '../identity/caller';
import { type SecretStore, serviceSecretName } from '../secrets/index';
import { hasSetting, readSetting, writeSetting } from '../settings/store';
import { ConflictError, UpstreamError, ValidationError } from '../shared/errors';
import { LlmCallError, type LlmEndpoint, renderBody } from './llm-client';
import { endpointRefusal } from '../outbound/endpoint-guard';
import { isValidResponsePath } from './response-path';

const KEY = 'summarization';
const MASK = '*****';
/** Headers whose values are not secret and are shown as they are. */
const PLAIN_HEADERS = new Set(['content-type', 'accept', 'user-agent']);

export interface SummarizationSettingsInput {
  url: string;
  headers?: Record<string, string>;
  bodyTemplate: string;
  responsePath: string;
  timeoutMs?: number;
  promptBudgetChars?: number;
  /** Allow private network ranges (loopback is always allowed, link-local and metadata addresses never). */
  allowPrivateNetwork?: boolean;
}

export interface SummarizationSettingsView extends Required<Omit<SummarizationSettingsInput, 'headers'>> {
  configured: true;
  headers: Record<string, string>;
  updatedAt: string;
}

export interface SettingsDeps {
  db: Database;
  secrets: SecretStore;
}

/** An OpenAI-compatible default that local servers (llama.cpp, Ollama) also accept. */
export const OPENAI_COMPATIBLE_TEMPLATE = JSON.stringify({
  model: 'gpt-4o-mini',
  messages: [
    { role: 'system', content: '{{instructions}}' },
    { role: 'user', content: '{{prompt}}' },
  ],
});

interface Stored {
  url: string;
  bodyTemplate: string;
  responsePath: string;
  timeoutMs: number;
  promptBudgetChars: number;
  allowPrivateNetwork?: boolean;
  headerNames: string[];
}

async function read(
  deps: SettingsDeps,
): Promise<{ stored: Stored; headers: Record<string, string>; updatedAt: Date } | undefined> {
  const row = await readSetting(deps.db, KEY);
  if (!row) return undefined;
  const headers = row.secretRef
    ? (JSON.parse(await deps.secrets.get(row.secretRef)) as Record<string, string>)
    : {};
  return { stored: row.value as unknown as Stored, headers, updatedAt: row.updatedAt };
}

function masked(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([k, v]) => [k, PLAIN_HEADERS.has(k.toLowerCase()) ? v : MASK]),
  );
}

export async function getSummarizationSettings(
  deps: SettingsDeps,
  caller: Caller,
): Promise<SummarizationSettingsView | { configured: false; bodyTemplate: string; responsePath: string }> {
  requireAdmin(caller);
  const s = await read(deps);
  if (!s)
    return {
      configured: false,
      bodyTemplate: OPENAI_COMPATIBLE_TEMPLATE,
      responsePath: 'choices[0].message.content',
    };
  return {
    configured: true,
    url: s.stored.url,
    headers: masked(s.headers),
    bodyTemplate: s.stored.bodyTemplate,
    responsePath: s.stored.responsePath,
    timeoutMs: s.stored.timeoutMs,
    promptBudgetChars: s.stored.promptBudgetChars,
    allowPrivateNetwork: s.stored.allowPrivateNetwork ?? false,
    updatedAt: s.updatedAt.toISOString(),
  };
}

export async function putSummarizationSettings(
  deps: SettingsDeps,
  caller: Caller,
  input: SummarizationSettingsInput,
): Promise<SummarizationSettingsView> {
  requireAdmin(caller);
  if (!/\{\{\s*instructions\s*\}\}/.test(input.bodyTemplate)) {
    throw ValidationError.field('bodyTemplate', 'must contain the placeholder {{instructions}}');
  }
  renderBody(input.bodyTemplate, { instructions: 'x', prompt: 'y' });
  if (!isValidResponsePath(input.responsePath)) {
    throw ValidationError.field('responsePath', 'must be a path such as choices[0].message.content');
  }
  const refusal = await endpointRefusal(input.url, { allowPrivateNetwork: input.allowPrivateNetwork });
  if (refusal) throw ValidationError.field('url', refusal);
  const previous = await read(deps);
  // Stored secrets go only where they went before: a new URL needs them sent again.
  const sameUrl = previous !== undefined && sameEndpoint(previous.stored.url, input.url);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(input.headers ?? {})) {
    if (v === MASK) {
      const old = previous?.headers[k];
      if (old === undefined)
        throw ValidationError.field(`headers.${k}`, 'has no stored value to keep; send the value');
      if (!sameUrl && !PLAIN_HEADERS.has(k.toLowerCase()))
        throw ValidationError.field(
          `headers.${k}`,
          'the URL changed, so the stored value is not kept: send the value again',
        );
      headers[k] = old;
    } else headers[k] = v;
  }
  const ref = await deps.secrets.put(serviceSecretName('summarization-headers'), JSON.stringify(headers));
  const value: Stored = {
    url: input.url,
    bodyTemplate: input.bodyTemplate,
    responsePath: input.responsePath,
    timeoutMs: input.timeoutMs ?? 60_000,
    promptBudgetChars: input.promptBudgetChars ?? 24_000,
    allowPrivateNetwork: input.allowPrivateNetwork ?? false,
    headerNames: Object.keys(headers),
  };
  const now = new Date();
  await writeSetting(deps.db, KEY, {
    value: value as unknown as Record<string, unknown>,
    secretRef: ref,
    updatedAt: now,
  });
  return {
    configured: true,
    ...value,
    headers: masked(headers),
    updatedAt: now.toISOString(),
  } as SummarizationSettingsView;
}

function sameEndpoint(a: string, b: string): boolean {
  try {
    return new URL(a).href === new URL(b).href;
  } catch {
    return false;
  }
}

/** Whether a language-model endpoint is saved (no secret is read): what the summary box tells readers. */
export async function hasEndpoint(db: Database): Promise<boolean> {
  return hasSetting(db, KEY);
}

/** The endpoint to call, with its headers decrypted; undefined when none is configured. */
export async function loadEndpoint(
  deps: SettingsDeps,
): Promise<(LlmEndpoint & { promptBudgetChars: number }) | undefined> {
  const s = await read(deps);
  if (!s) return undefined;
  return {
    url: s.stored.url,
    headers: s.headers,
    bodyTemplate: s.stored.bodyTemplate,
    responsePath: s.stored.responsePath,
    timeoutMs: s.stored.timeoutMs,
    promptBudgetChars: s.stored.promptBudgetChars,
    allowPrivateNetwork: s.stored.allowPrivateNetwork ?? false,
  };
}

/** The admin's test call: a tiny prompt through the configured endpoint. */
export async function testSummarizationEndpoint(
  deps: SettingsDeps,
  caller: Caller,
  call: (
    endpoint: LlmEndpoint,
    values: { instructions: string; prompt: string },
  ) => Promise<{ text: string; meta: unknown }>,
): Promise<{ ok: true; text: string; meta: unknown }> {
  requireAdmin(caller);
  const endpoint = await loadEndpoint(deps);
  if (!endpoint)
    throw new ConflictError(
      'No language-model endpoint is configured; save the summarization settings first.',
    );
  let answer: { text: string; meta: unknown };
  try {
    answer = await call(endpoint, {
      instructions: 'Answer with one short sentence.',
      prompt: 'This is a connection test of the anomaly monitor. Reply "ok".',
    });
  } catch (e) {
    // The administrator testing the endpoint may see what it answered; data users never do.
    if (e instanceof LlmCallError && e.answerExcerpt)
      throw new UpstreamError(`${e.message} The endpoint answered: ${e.answerExcerpt}`, e);
    throw e;
  }
  return { ok: true, text: answer.text.slice(0, 500), meta: answer.meta };
}
