/**
 * The OpenAPI document covers every operation (response schema, query parameters, security) and the
 * reference page renders it with the bundled Swagger UI, loading nothing from another origin.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { registeredRoutes } from '../../functions/http/registry';
import * as system from '../../functions/http/system';
import { DOCS_CSP } from '../../lib/http/docs-page';
import { buildOpenApi, handsQueryOn, QUERY_HELPERS, queryDocOf, queryParamsOf } from '../../lib/http/openapi';
import type { Route } from '../../lib/http/router';
import { RESPONSES, responseKey } from '../../lib/http/response-schemas';
import { root } from './support';

type Json = Record<string, any>;
const routes = [...system.routes, ...registeredRoutes()];
const doc = buildOpenApi(routes, { version: 'test' }) as Json;
const operations: Array<[string, Json]> = Object.entries(doc.paths as Json).flatMap(([p, ops]) =>
  Object.entries(ops as Json).map(([m, op]) => [`${m.toUpperCase()} ${p}`, op as Json] as [string, Json]),
);

/** The node a local `#/…` reference points at. */
const resolve = (ref: string): unknown =>
  ref
    .replace(/^#\//, '')
    .split('/')
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<any>((node, part) => node?.[part], doc);

/** A schema that says what the answer holds: named properties, typed items, a combination of those, or a value. */
function specific(schema: Json | undefined, depth = 0): boolean {
  if (!schema || depth > 8) return false;
  if (schema.$ref) return specific(resolve(schema.$ref) as Json, depth + 1);
  if (schema.const !== undefined || schema.enum) return true;
  if (schema.type === 'array') return specific(schema.items, depth + 1);
  if (schema.properties) return Object.keys(schema.properties).length > 0;
  for (const k of ['allOf', 'anyOf', 'oneOf'])
    if (schema[k]) return (schema[k] as Json[]).every((s) => specific(s, depth + 1));
  return ['string', 'integer', 'number', 'boolean'].includes(schema.type);
}

describe('the OpenAPI document', () => {
  it('declares a response schema of its own for every operation (or no content for 204)', () => {
    expect(operations.length).toBe(routes.length);
    for (const [key, op] of operations) {
      const [status, res] = Object.entries(op.responses as Json).find(([s]) => /^2\d\d$/.test(s)) ?? [];
      expect(status, key).toBeDefined();
      for (const code of ['400', '404', '429']) expect(op.responses[code], `${key} ${code}`).toBeDefined();
      if (status === '204') {
        expect(res.content, key).toBeUndefined();
        continue;
      }
      const media = Object.entries(res.content ?? {}) as Array<[string, Json]>;
      expect(media.length, key).toBeGreaterThan(0);
      for (const [type, { schema }] of media) {
        // JSON answers name their fields; other media (HTML, CSS, CSV, YAML) are strings.
        if (type === 'application/json')
          expect(specific(schema), `${key}: ${JSON.stringify(schema)}`).toBe(true);
        else expect(schema, `${key} ${type}`).toMatchObject({ type: 'string' });
      }
      // An operation answers JSON unless it serves the reference page.
      if (!/^\S+ \/api\/v1\/docs/.test(key)) expect(res.content['application/json'], key).toBeDefined();
    }
    console.info(`${operations.length} operations, each with a response schema of its own`);
  });

  it('maps only operations that exist, and resolves every $ref of the document', () => {
    const keys = new Set(routes.map(responseKey));
    expect(Object.keys(RESPONSES).filter((k) => !keys.has(k))).toEqual([]);
    const refs = new Set<string>();
    const walk = (n: unknown): void => {
      if (Array.isArray(n)) n.forEach(walk);
      else if (n && typeof n === 'object')
        for (const [k, v] of Object.entries(n)) {
          if (k === '$ref' && typeof v === 'string') refs.add(v);
          else walk(v);
        }
    };
    walk(doc);
    for (const ref of refs) expect(resolve(ref), ref).toBeDefined();
    // The document compiles as JSON Schema 2020-12 (OpenAPI 3.1's dialect).
    const ajv = new Ajv2020({ strict: false });
    addFormats(ajv);
    ajv.addSchema({ ...doc, $id: 'openapi' });
    for (const name of Object.keys(doc.components.schemas))
      expect(ajv.getSchema(`openapi#/components/schemas/${name}`), name).toBeDefined();
  });

  it('fails an operation that answers the generic object or a missing schema', () => {
    expect(specific({ type: 'object', additionalProperties: true })).toBe(false);
    expect(specific({ oneOf: [{ type: 'object' }, { type: 'array' }] })).toBe(false);
    expect(specific({ $ref: '#/components/schemas/nothing-here' })).toBe(false);
    expect(specific({ $ref: '#/components/schemas/user-view' })).toBe(true);
  });

  it('declares the query parameters every operation reads, each with a schema and a description', () => {
    let declared = 0;
    for (const r of routes) {
      const key = `${r.method} ${r.path}`;
      const op = doc.paths[r.path][r.method.toLowerCase()];
      const query = op.parameters.filter((p: Json) => p.in === 'query');
      expect(
        query.map((p: Json) => p.name),
        key,
      ).toEqual(queryParamsOf(r));
      for (const p of query) {
        expect(p.description, `${key} ?${p.name}`).toEqual(expect.any(String));
        expect(queryDocOf(r, p.name)?.schema, `${key} ?${p.name}`).toBeDefined();
      }
      // A handler that hands the whole query on reads what a known helper reads.
      if (handsQueryOn(r))
        expect(
          QUERY_HELPERS.some(([re]) => re.test(String(r.handle))),
          `${key} hands its query to a helper that QUERY_HELPERS (lib/http/openapi.ts) does not list`,
        ).toBe(true);
      declared += query.length;
    }
    // Every `query.x` of the route tables is documented on some operation.
    const documented = new Set(
      operations.flatMap(([, op]) =>
        op.parameters.filter((p: Json) => p.in === 'query').map((p: Json) => p.name),
      ),
    );
    const dir = path.join(root, 'functions/http');
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts') && n !== 'registry.ts')) {
      const source = readFileSync(path.join(dir, f), 'utf8');
      if (!routes.some((r) => source.includes(`'${r.path}'`) || source.includes(`\`\${base}`))) continue;
      for (const m of source.matchAll(/\bquery\.(\w+)/g))
        expect(documented.has(m[1]), `${f}: ${m[1]}`).toBe(true);
    }
    expect(declared).toBeGreaterThan(30);
  });

  it('notices a handler that hands its query to an unknown helper', () => {
    const route = (handle: Route['handle']) => ({ ...routes[0], handle });
    expect(handsQueryOn(route(async ({ query }) => ({ page: query.page })))).toBe(false);
    expect(handsQueryOn(route(async ({ query }) => JSON.stringify(query)))).toBe(true);
    expect(handsQueryOn(route(async ({ body }) => (body as { query: string }).query))).toBe(false);
    expect(queryParamsOf(route(async ({ query }) => [query.a, query?.b, query['c']]))).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('names its security schemes and which operations need them', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['apiKey', 'bearer']);
    for (const r of routes) {
      const op = doc.paths[r.path][r.method.toLowerCase()];
      if (r.access === 'public') expect(op.security, r.path).toEqual([]);
      else expect(op.security, r.path).toEqual([{ bearer: [] }, { apiKey: [] }]);
    }
  });
});

describe('the API reference page', () => {
  const get = async (rawPath: string) =>
    (await (system.handler as unknown as (e: object, c: object) => Promise<Json>)(
      { rawPath, headers: {}, requestContext: { http: { method: 'GET', path: rawPath }, requestId: 'r' } },
      {},
    )) as { statusCode: number; headers: Record<string, string>; body: string };

  it('renders with the bundled Swagger UI under a strict policy, loading nothing from another origin', async () => {
    const page = await get('/api/v1/docs');
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-security-policy']).toBe(DOCS_CSP);
    expect(DOCS_CSP).toMatch(/script-src 'self';/);
    expect(page.body).not.toMatch(/https?:\/\//);
    expect(page.body).not.toMatch(/<script>(?!<\/script>)/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.sort()).toEqual([
      '/api/v1/docs/assets/init.js',
      '/api/v1/docs/assets/swagger-ui-bundle.js',
      '/api/v1/docs/assets/swagger-ui.css',
    ]);
    for (const asset of assets) {
      const res = await get(asset);
      expect(res.statusCode, asset).toBe(200);
      expect(res.headers['content-type'], asset).toMatch(
        asset.endsWith('.css') ? /^text\/css/ : /^text\/javascript/,
      );
    }
    const bundle = await get('/api/v1/docs/assets/swagger-ui-bundle.js');
    expect(bundle.body.length).toBeGreaterThan(500_000);
    expect((await get('/api/v1/docs/assets/init.js')).body).toContain("url: '/api/v1/openapi.json'");
  });

  it('answers 404 for any other asset name', async () => {
    for (const name of ['package.json', '..%2Fpackage.json', 'index.html']) {
      expect((await get(`/api/v1/docs/assets/${name}`)).statusCode, name).toBe(404);
    }
  });
});
