/** The CLI's HTTP client: credentials, JSON and YAML bodies, and problem+json answers turned into CliErrors. */
import type { Settings } from './config';
import { CliError, ExitCode, exitCodeForStatus, type Problem } from './errors';

export type Query = Record<string, string | number | boolean | undefined>;

export interface RequestOptions {
  query?: Query;
  /** A JSON body. */
  body?: unknown;
  /** A YAML document sent as application/yaml (data view definitions). */
  yaml?: string;
  accept?: string;
  /** false: send no credential (sign-in, health). */
  auth?: boolean;
}

/** Encodes one path segment (a name or a domain may hold spaces or slashes). */
export const seg = (value: string | number) => encodeURIComponent(String(value));

function withQuery(path: string, query: Query | undefined): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') params.set(k, String(v));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

function hintFor(status: number, settings: Settings): string | undefined {
  if (status !== 401) return undefined;
  if (!settings.credential) return 'Sign in with `service-cli login`, or pass --token or --api-key.';
  if (settings.credentialSource === 'config file') return 'Sign in again with `service-cli login`.';
  return undefined;
}

function problemOf(status: number, text: string): Problem {
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === 'object') return parsed as Problem;
  } catch {
    // not JSON: fall through to a plain problem
  }
  return { status, detail: text.trim() || `HTTP ${status}` };
}

/** A 3xx answer: refused, with where it pointed, so that the user can set --url to the right address. */
function redirectRefused(res: Response, base: string): CliError {
  const location = res.headers.get('location');
  return new CliError(
    `The service at ${base} answered ${res.status} redirecting to ${location ?? '(no location)'}; ` +
      'service-cli does not follow redirects (they would carry your credential). ' +
      'Set --url or SERVICE_CLI_URL to the address the service answers at.',
    ExitCode.failure,
  );
}

export class ApiClient {
  constructor(readonly settings: Settings) {}

  /** One call; resolves to the parsed answer (undefined for 204), rejects with a CliError carrying the exit code. */
  async request<T = any>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const headers: Record<string, string> = {
      accept: opts.accept ?? 'application/json',
      'user-agent': 'service-cli',
    };
    const cred = this.settings.credential;
    if (opts.auth !== false && cred) {
      if (cred.kind === 'token') headers.authorization = `Bearer ${cred.value}`;
      else headers['x-api-key'] = cred.value;
    }
    let body: string | undefined;
    if (opts.yaml !== undefined) {
      body = opts.yaml;
      headers['content-type'] = 'application/yaml';
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    const url = this.settings.url + withQuery(path, opts.query);
    let res: Response;
    try {
      // Never followed: a redirect would carry the credential (x-api-key, Authorization) to its target.
      res = await fetch(url, { method, headers, body, redirect: 'manual' });
    } catch (e) {
      const reason = (e as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(
        `Cannot reach the service at ${this.settings.url} (${reason?.code ?? reason?.message ?? (e as Error).message}). ` +
          'Is it running? Set --url or SERVICE_CLI_URL.',
        ExitCode.failure,
        undefined,
        e,
      );
    }
    if (res.status >= 300 && res.status < 400) throw redirectRefused(res, this.settings.url);
    const text = await res.text();
    if (!res.ok) {
      const problem = problemOf(res.status, text);
      const detail = problem.detail ?? problem.title ?? `HTTP ${res.status}`;
      const hint = hintFor(res.status, this.settings);
      throw new CliError(hint ? `${detail}\n${hint}` : detail, exitCodeForStatus(res.status), {
        ...problem,
        status: problem.status ?? res.status,
      });
    }
    if (res.status === 204 || text === '') return undefined as T;
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('json')) return JSON.parse(text) as T;
    return text as T;
  }

  get<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('GET', path, opts);
  }

  post<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('POST', path, opts);
  }

  put<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('PUT', path, opts);
  }

  delete<T = any>(path: string, opts?: RequestOptions) {
    return this.request<T>('DELETE', path, opts);
  }
}
