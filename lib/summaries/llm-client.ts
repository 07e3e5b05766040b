/** Calls the configured chat-style HTTP endpoint: renders the body template, posts it, reads the answer at the response path. */
import { UpstreamError, ValidationError } from '../shared/errors';
import { endpointRefusal, type Resolve } from '../outbound/endpoint-guard';
import { AnswerTooLargeError, pinnedFetch } from '../outbound/pinned-fetch';
import { readPath } from './response-path';

export interface LlmEndpoint {
  url: string;
  headers: Record<string, string>;
  /** JSON text with the placeholders {{instructions}} and {{prompt}} (inside JSON strings). */
  bodyTemplate: string;
  responsePath: string;
  timeoutMs: number;
  /** Private network ranges allowed (see lib/outbound/endpoint-guard.ts). */
  allowPrivateNetwork?: boolean;
}

/**
 * A failed call. The message is safe for every reader of a summary; `answerExcerpt` (what the endpoint
 * answered) is shown to administrators testing the endpoint only.
 */
export class LlmCallError extends UpstreamError {
  constructor(
    message: string,
    readonly answerExcerpt?: string,
  ) {
    super(message);
    this.name = 'LlmCallError';
  }
}

export interface LlmAnswer {
  text: string;
  meta: { status: number; ms: number; model?: string; usage?: unknown; url: string };
}

/** JSON-escapes `value` for use inside a JSON string literal. */
function jsonInner(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

/** The request body: placeholders replaced with JSON-escaped text; the result must be valid JSON. */
export function renderBody(template: string, values: { instructions: string; prompt: string }): string {
  const body = template
    .replace(/\{\{\s*instructions\s*\}\}/g, jsonInner(values.instructions))
    .replace(/\{\{\s*prompt\s*\}\}/g, jsonInner(values.prompt));
  try {
    JSON.parse(body);
  } catch (e) {
    throw ValidationError.field(
      'bodyTemplate',
      `does not give valid JSON once filled in (${(e as Error).message})`,
    );
  }
  return body;
}

/** The most bytes of a model's answer read: a chat completion is a few kilobytes; more is not an answer. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat;
}

export async function callModel(
  endpoint: LlmEndpoint,
  values: { instructions: string; prompt: string },
  fetchImpl?: typeof fetch,
  resolve?: Resolve,
): Promise<LlmAnswer> {
  const body = renderBody(endpoint.bodyTemplate, values);
  // Checked again at each call: the name may resolve to another address than when it was saved.
  const refusal = await endpointRefusal(endpoint.url, endpoint, resolve);
  if (refusal) throw new LlmCallError(`The language-model URL ${refusal}; an administrator must change it.`);
  const started = Date.now();
  const host = (() => {
    try {
      return new URL(endpoint.url).host;
    } catch {
      return endpoint.url;
    }
  })();
  let res: Response;
  let text: string;
  try {
    // By default the connection itself refuses what the check refuses (no rebinding in between).
    res = await (fetchImpl ?? pinnedFetch(endpoint, { resolve, maxBytes: MAX_ANSWER_BYTES }))(endpoint.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...endpoint.headers },
      body,
      signal: AbortSignal.timeout(endpoint.timeoutMs),
      // A redirect could lead anywhere, metadata addresses included: not followed.
      redirect: 'manual',
    });
    text = await res.text();
  } catch (e) {
    const name = (e as Error).name;
    if (name === 'TimeoutError' || name === 'AbortError') {
      throw new LlmCallError(`The language model at ${host} did not answer within ${endpoint.timeoutMs} ms.`);
    }
    if (e instanceof AnswerTooLargeError)
      throw new LlmCallError(`The language model at ${host} answered more than ${e.maxBytes} bytes.`);
    throw new LlmCallError(`The language model at ${host} could not be reached.`, (e as Error).message);
  }
  if (res.status >= 300 && res.status < 400) {
    throw new LlmCallError(
      `The language model at ${host} answered with a redirect (HTTP ${res.status}), which is not followed.`,
    );
  }
  if (!res.ok) {
    throw new LlmCallError(`The language model at ${host} answered HTTP ${res.status}.`, excerpt(text));
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new LlmCallError(`The language model at ${host} did not answer JSON.`, excerpt(text));
  }
  const value = readPath(json, endpoint.responsePath);
  if (typeof value !== 'string' || value.trim() === '') {
    throw new LlmCallError(
      `The answer of the language model has no text at the response path ${endpoint.responsePath}.`,
      excerpt(text),
    );
  }
  const obj = json as { model?: string; usage?: unknown };
  return {
    text: value.trim(),
    meta: { status: res.status, ms: Date.now() - started, model: obj.model, usage: obj.usage, url: host },
  };
}
