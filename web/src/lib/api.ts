/** The one way the UI talks to the API: same-origin fetch with the session token, problem+json errors as ApiError. */
import { clearToken, getToken } from './session';

export interface FieldError {
  path: string;
  message: string;
}

/** A refused or failed call: `detail` is the service's sentence, `errors` the fields at fault. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly errors: FieldError[] = [],
  ) {
    super(detail);
    this.name = 'ApiError';
  }

  /** The messages for one field path (exact match, or the path's children when `prefix`). */
  forField(path: string, prefix = false): string[] {
    return this.errors
      .filter((e) => e.path === path || (prefix && e.path.startsWith(`${path}.`)))
      .map((e) => e.message);
  }
}

export interface CallOptions {
  /** Send `body` as YAML text instead of JSON. */
  yaml?: boolean;
  /** Accept header; a non-JSON answer resolves as text. */
  accept?: string;
  signal?: AbortSignal;
}

/** Calls `/api/v1<path>`; resolves with the parsed JSON body (undefined for 204), rejects with ApiError. */
export async function api<T = unknown>(
  method: string,
  path: string,
  body?: unknown,
  opts: CallOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { accept: opts.accept ?? 'application/json' };
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  let payload: string | undefined;
  if (body !== undefined) {
    headers['content-type'] = opts.yaml ? 'application/yaml' : 'application/json';
    payload = opts.yaml ? String(body) : JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(`/api/v1${path}`, { method, headers, body: payload, signal: opts.signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw e;
    throw new ApiError(0, 'The service cannot be reached. Check that it is running.');
  }
  const text = await res.text();
  let parsed: unknown = text || undefined;
  if (text && /json/.test(res.headers.get('content-type') ?? 'application/json')) {
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON after all: keep the text
    }
  }
  if (res.ok) {
    // The UI's SPA fallback answers unknown GET paths with index.html: for the API that means "no such endpoint".
    if (!opts.accept && /text\/html/.test(res.headers.get('content-type') ?? '')) {
      throw new ApiError(404, `No endpoint ${method} /api/v1${path}.`);
    }
    return parsed as T;
  }
  const problem = (typeof parsed === 'object' && parsed ? parsed : {}) as {
    detail?: string;
    title?: string;
    errors?: FieldError[];
  };
  if (res.status === 401 && token) clearToken();
  throw new ApiError(
    res.status,
    problem.detail || problem.title || `${method} ${path} answered ${res.status}.`,
    Array.isArray(problem.errors) ? problem.errors : [],
  );
}

/** True when the error says the endpoint does not exist in this service (not a missing record). */
export function isMissingEndpoint(e: unknown): boolean {
  return (
    e instanceof ApiError && (e.status === 405 || (e.status === 404 && /^No (endpoint|route)/.test(e.detail)))
  );
}

/** Query string from the defined, non-empty values. */
export function qs(params: Record<string, string | number | undefined | null>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params))
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

export const enc = encodeURIComponent;
