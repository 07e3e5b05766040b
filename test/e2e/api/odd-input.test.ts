/**
 * Every route of the route tables, walked with input PostgreSQL or JavaScript cannot take (NUL, unpaired surrogates,
 * ids beyond `serial`, numbers beyond safe integers, malformed percent-escapes) in its path, query and body:
 * every answer is a 4xx problem, never a 5xx. The handlers are invoked with API Gateway payload 2.0 events directly,
 * so that raw (undecoded) paths reach the router as they do behind API Gateway.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpFunctions } from '../../../functions/http/registry';
import * as system from '../../../functions/http/system';
import type { Route } from '../../../lib/http/router';
import { createView } from '../../integration/filters/fixtures';
import { startTestService, type TestService } from '../../support/service';

type Handler = (event: unknown, context: unknown) => Promise<unknown>;
interface Res {
  statusCode: number;
  body?: string;
}

const functions: Array<{ routes: Route[]; handler: Handler }> = [
  ...httpFunctions.map((f) => ({ routes: f.routes, handler: f.handler })),
  { routes: system.routes, handler: system.handler as unknown as Handler },
];

/** Raw path segments (as they travel in the URL) for a `{param}`. */
const BAD_SEGMENTS = [
  '3000000000',
  '99999999999999999999',
  '%00',
  'a%00b',
  '%E0%A4%A',
  '%',
  '%ZZ',
  '%ED%A0%80',
];
/** Decoded query values. */
const BAD_QUERY_VALUES = ['\u0000', 'x\u0000', '3000000000', '99999999999999999999', '\uD800', '1e400'];

/** Every query parameter name the route tables read (`query.x`). */
function queryNames(): string[] {
  const dir = path.join(__dirname, '../../../functions/http');
  const names = new Set<string>(['dataViewId', 'limit', 'offset', 'id']);
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
    for (const m of readFileSync(path.join(dir, f), 'utf8').matchAll(/query\.(\w+)|query\[['"](\w+)['"]\]/g))
      names.add(m[1] ?? m[2]);
  }
  return [...names];
}

/**
 * The query names a route reads: those its handler names (`query.x`), or every name when the handler hands
 * the query on as a whole (to a parser of its own); with two the route does not read, which it must ignore.
 */
function namesOf(r: Route, all: readonly string[]): readonly string[] {
  const text = r.handle.toString();
  if (/\bquery\b(?!\s*[.[?])/.test(text)) return all;
  const own = [...text.matchAll(/query\??\.(\w+)|query\[['"](\w+)['"]\]/g)].map((m) => m[1] ?? m[2]!);
  return [...new Set([...own, 'limit', 'dataViewId'])];
}

/** Bodies that carry one odd value each in fields the routes take (valid otherwise where it matters). */
const BAD_BODIES: unknown[] = [
  { email: 'admin\u0000@example.com', password: 'admin-password-1' },
  { email: 'admin@example.com', password: 'pw\u0000' },
  { name: 'Big\u0000drops', dataViews: 'sales / orders' },
  { name: 'Big drops', dataViews: 'sales / orders', comment: 'x\u0000' },
  { name: '\uDC00', dataViews: 'sales / orders' },
  { dataViewId: 3000000000, text: 'A comment', dateFrom: '2024-01-01', dateTo: '2024-01-02', email: 'a@b.c' },
  { dataViewId: 1, text: 'A\u0000', dateFrom: '2024-01-01', dateTo: '2024-01-02', email: 'a@b.c' },
  { id: 3000000000, name: 'Big drops', dataViews: 'sales / orders' },
  { pinned: true, id: 3000000000 },
  { userIds: [3000000000], users: ['user@example.com'] },
  { dataViewIds: [3000000000] },
  { seriesId: 3000000000, detector: 'spike' },
  { seriesId: 2 ** 60 },
  { limit: 2 ** 60 },
  { value: 2 ** 53 + 2 },
  { 'key\u0000': 1 },
  { sql: 'select 1\u0000', connector: 'x' },
  { expression: '0 * * * *\u0000' },
  { url: 'http://127.0.0.1/\u0000', model: 'm' },
];
const RAW_BODIES = [
  '{"limit": 1e400}',
  '{"value": 9007199254740993}',
  '{"id": 123456789012345678901234567890}',
  '"\\u0000"',
];
const YAML_BODIES = ['metadata:\n  name: "a\\0b"\n', 'metadata:\n  name: a\u0000b\n'];

describe('odd input on every route: 4xx, never 5xx', () => {
  let s: TestService;
  let token: string;
  const failures: string[] = [];

  async function invoke(
    fn: Handler,
    method: string,
    rawPath: string,
    init: Partial<Record<string, unknown>> = {},
  ) {
    const event = {
      version: '2.0',
      routeKey: '$default',
      rawPath,
      rawQueryString: '',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        ...(init.headers as object),
      },
      queryStringParameters: init.query,
      body: init.body,
      isBase64Encoded: false,
      requestContext: {
        requestId: randomUUID(),
        http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: '' },
      },
    };
    const r = (await fn(event, {})) as Res;
    const what = `${method} ${rawPath} ${init.query ? JSON.stringify(init.query) : ''} ${init.body ? JSON.stringify(init.body).slice(0, 80) : ''}`;
    if (r.statusCode >= 500) failures.push(`${r.statusCode} ${what} → ${r.body?.slice(0, 200)}`);
    return r;
  }

  beforeAll(async () => {
    s = await startTestService();
    token = s.adminToken;
    await createView(s.testDb.db, { domain: 'sales', name: 'orders', categories: ['Country'] });
  });
  afterAll(() => s?.stop());

  it('bad path parameters', async () => {
    for (const f of functions) {
      for (const r of f.routes.filter((x) => x.path.includes('{'))) {
        for (const seg of BAD_SEGMENTS) {
          const res = await invoke(f.handler, r.method, r.path.replace(/\{\w+\}/g, seg), {
            body: r.body || r.docBody ? '{}' : undefined,
          });
          // An id parameter must refuse them all; a name or e-mail may legitimately be '3000000000'.
          if (/\{(id|\w+Id)\}/.test(r.path) && !/\{(name|domain|email)\}/.test(r.path))
            expect(res.statusCode, `${r.method} ${r.path} with ${seg}`).toBe(400);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('bad query values', async () => {
    const names = queryNames();
    for (const f of functions) {
      for (const r of f.routes) {
        const p = r.path.replace(/\{\w+\}/g, '1');
        for (const v of BAD_QUERY_VALUES) {
          for (const n of namesOf(r, names)) await invoke(f.handler, r.method, p, { query: { [n]: v } });
        }
        await invoke(f.handler, r.method, p, { query: { 'k\u0000': '1' } });
      }
    }
    expect(failures).toEqual([]);
  });

  it('bad bodies', async () => {
    for (const f of functions) {
      for (const r of f.routes.filter((x) => x.method !== 'GET')) {
        const p = r.path.replace(/\{\w+\}/g, '1');
        for (const b of BAD_BODIES) {
          const res = await invoke(f.handler, r.method, p, { body: JSON.stringify(b) });
          if (r.body) {
            expect(res.statusCode, `${r.method} ${r.path} ${JSON.stringify(b)}`).toBeGreaterThanOrEqual(400);
            expect(res.statusCode, `${r.method} ${r.path} ${JSON.stringify(b)}`).toBeLessThan(500);
          }
        }
        for (const raw of RAW_BODIES) await invoke(f.handler, r.method, p, { body: raw });
        if (r.yaml)
          for (const y of YAML_BODIES)
            await invoke(f.handler, r.method, p, {
              body: y,
              headers: { 'content-type': 'application/yaml' },
            });
      }
    }
    expect(failures).toEqual([]);
  });

  it('names the field and leaves the data alone', async () => {
    const sign = await invoke(functions[0].handler, 'POST', '/api/v1/auth/token', {
      body: JSON.stringify({ email: 'admin\u0000@example.com', password: 'x' }),
    });
    expect(sign.statusCode).toBe(400);
    expect(JSON.parse(sign.body!).errors[0].path).toBe('email');
    const comments = functions.find((f) => f.routes.some((r) => r.path === '/api/v1/comments'))!;
    const c = await invoke(comments.handler, 'POST', '/api/v1/comments', {
      body: JSON.stringify({ dataViewId: 3000000000, text: 'x', dateFrom: '2024-01-01', email: 'a@b.c' }),
    });
    expect(c.statusCode).toBe(400);
    expect(JSON.parse(c.body!).errors[0].path).toBe('dataViewId');
    const byId = await invoke(comments.handler, 'GET', '/api/v1/comments/3000000000');
    expect(byId.statusCode).toBe(400);
    expect(JSON.parse(byId.body!).detail).toContain('id');
  });
});
