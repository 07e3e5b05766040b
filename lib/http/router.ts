/** Route tables: each HTTP function declares its routes (method, path template, access, body schema) and one call each. */
import type { Caller } from '../identity/caller';
import { decodeParam } from './input-guard';

export type Access = 'public' | 'authenticated' | 'read' | 'write' | 'admin' | 'process';

export interface HttpRequest<B = unknown> {
  method: string;
  path: string;
  params: Record<string, string>;
  query: Record<string, string | undefined>;
  headers: Record<string, string | undefined>;
  body: B;
  rawBody: string | undefined;
  caller: Caller;
  requestId: string;
  /** The client address API Gateway saw (never a client-sent header). */
  sourceIp?: string;
  /** Fires shortly before the function's timeout (lib/http/deadline.ts); absent outside a Lambda. */
  signal?: AbortSignal;
}

export class HttpResult {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

export const created = (body: unknown) => new HttpResult(201, body);
export const accepted = (body: unknown) => new HttpResult(202, body);
export const noContent = () => new HttpResult(204, undefined);

export interface Route {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';
  path: string;
  access: Access;
  summary: string;
  tag: string;
  /** Schema $id the JSON body must satisfy. */
  body?: string;
  /** Schema shown in the OpenAPI document when the use case validates the body itself (e.g. JSON or YAML). */
  docBody?: string;
  /** Accept application/yaml bodies (returned to the route as text). */
  yaml?: boolean;
  /** Response description for the OpenAPI document. */
  response?: { status: number; description: string; schema?: string };
  handle(req: HttpRequest): Promise<unknown>;
}

interface Compiled {
  route: Route;
  regex: RegExp;
  names: string[];
}

export function compileRoutes(routes: Route[]): Compiled[] {
  return routes.map((route) => {
    const names: string[] = [];
    const pattern = route.path
      .split('/')
      .map((seg) => {
        const m = /^\{(\w+)\}$/.exec(seg);
        if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        names.push(m[1]);
        return '([^/]+)';
      })
      .join('/');
    return { route, regex: new RegExp(`^${pattern}/?$`), names };
  });
}

export type MatchResult =
  | { kind: 'found'; route: Route; params: Record<string, string>; paramError?: Error }
  | { kind: 'method-not-allowed'; allowed: string[] }
  | { kind: 'not-found' };

/** Literal segments win over parameters: `/little` beats `/{id}` regardless of declaration order. A malformed escape or a NUL in a parameter is returned as `paramError` (a 400 naming it, thrown after authentication). */
export function matchRoute(table: Compiled[], method: string, path: string): MatchResult {
  const hits: Array<{ c: Compiled; params: Record<string, string>; paramError?: Error }> = [];
  for (const c of table) {
    const m = c.regex.exec(path);
    if (!m) continue;
    const params: Record<string, string> = {};
    let paramError: Error | undefined;
    c.names.forEach((n, i) => {
      try {
        params[n] = decodeParam(m[i + 1], n);
      } catch (e) {
        params[n] = '';
        paramError ??= e as Error;
      }
    });
    hits.push({ c, params, paramError });
  }
  if (hits.length === 0) return { kind: 'not-found' };
  const sameMethod = hits.filter((h) => h.c.route.method === method);
  if (sameMethod.length === 0)
    return { kind: 'method-not-allowed', allowed: [...new Set(hits.map((h) => h.c.route.method))] };
  sameMethod.sort((a, b) => a.c.names.length - b.c.names.length);
  const hit = sameMethod[0];
  return { kind: 'found', route: hit.c.route, params: hit.params, paramError: hit.paramError };
}
