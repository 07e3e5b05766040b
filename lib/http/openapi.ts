/** Builds the OpenAPI 3.1 document from the route tables and the JSON Schemas of schemas/. */
import { allSchemas } from '../../schemas/index';
import { responseSchemas } from '../../schemas/responses/index';
import { inlineResponseSchemas, RESPONSES, type ResponseDoc, responseKey } from './response-schemas';
import type { Route } from './router';

type Json = Record<string, unknown>;

/** `$ref: 'x'` (a schema $id) → `#/components/schemas/x`; `$schema` dropped. */
function toComponentRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toComponentRefs);
  if (!node || typeof node !== 'object') return node;
  const copy: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === '$schema' || k === '$id') continue;
    copy[k] =
      k === '$ref' && typeof v === 'string' && !v.startsWith('#')
        ? `#/components/schemas/${v.replace(/#.*$/, '')}`
        : toComponentRefs(v);
  }
  return copy;
}

/** Every schema (and nested schema with its own $id) by id, with $refs rewritten to components. */
function componentSchemas(): Record<string, Json> {
  const out: Record<string, Json> = {};
  for (const s of [
    ...responseSchemas,
    ...Object.entries(inlineResponseSchemas).map(([$id, s]) => ({ ...s, $id })),
  ]) {
    const id = s.$id as string;
    if (out[id]) throw new Error(`Response schema $id '${id}' is defined twice`);
    out[id] = toComponentRefs(s) as Json;
  }
  // A file's local `#/definitions/x` points into that file's component (kept with its definitions).
  let fileId = '';
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const copy: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === '$schema') continue;
      if (k === '$ref' && typeof v === 'string') {
        copy[k] = v.startsWith('#')
          ? `#/components/schemas/${fileId}${v.slice(1)}`
          : `#/components/schemas/${v.replace(/#.*$/, '')}`;
        continue;
      }
      copy[k] = visit(v);
    }
    const id = (node as Json).$id;
    if (typeof id === 'string') {
      if (out[id]) throw new Error(`Schema $id '${id}' is defined twice`);
      delete copy.$id;
      out[id] = copy;
    }
    return copy;
  };
  for (const s of allSchemas) {
    fileId = s.$id;
    visit(s);
  }
  return out;
}

const security = {
  read: [{ bearer: [] }, { apiKey: [] }],
  admin: [{ bearer: [] }, { apiKey: [] }],
  process: [{ bearer: [] }, { apiKey: [] }],
  authenticated: [{ bearer: [] }, { apiKey: [] }],
  public: [],
};

/**
 * Query parameters an operation reads: `query.x` / `query['x']` in its handler, the parameters of the
 * helpers it hands the query to, and the paged filter run (which takes the whole query object).
 */
const QUERY_HELPERS: Array<[RegExp, string[]]> = [
  [/\bwindow\(query\)/, ['limit', 'offset']],
  [/\bmembersParam\(query\)/, ['members']],
  [/anomaliesByFilterPaged\(/, ['offset', 'pageSize', 'sortBy', 'order', 'format', 'members']],
];

const QUERY_DOC: Record<string, string> = {
  limit: 'Most items in the answer',
  offset: 'Items to skip (paging)',
  pageSize: 'Records per page (1-1000)',
  sortBy: 'rank, a record field or categories.<name>',
  order: 'asc or desc',
  format: 'csv answers every record as CSV',
  members: 'true: each merged event carries its member records',
  dataViewId: 'Only this data view (id)',
  seriesId: 'Only this series (id)',
  force: 'true or false',
  dateFrom: 'First day, yyyy-MM-dd',
  dateTo: 'Last day, yyyy-MM-dd',
};

export function queryParamsOf(route: Route): string[] {
  const source = String(route.handle);
  const names = new Set<string>();
  for (const m of source.matchAll(/\bquery\??\.(\w+)|\bquery\??\.?\[['"](\w+)['"]\]/g))
    names.add(m[1] ?? m[2]);
  for (const [re, helperNames] of QUERY_HELPERS)
    if (re.test(source)) for (const n of helperNames) names.add(n);
  return [...names].sort();
}

/** What an operation answers on success: the route's declaration, completed by lib/http/response-schemas.ts. */
export function responseOf(r: Route): ResponseDoc & { status: number } {
  const doc = RESPONSES[responseKey(r)] ?? {};
  const status = doc.status ?? r.response?.status ?? 200;
  // A job request (202) answers the queued job (the `job` answer of GET /jobs/{id}) with licence warnings.
  const schema = r.response?.schema
    ? { $ref: r.response.schema }
    : (doc.schema ?? (status === 202 ? { $ref: 'queued-job' } : undefined));
  return {
    ...doc,
    status,
    schema,
    description: doc.description ?? r.response?.description,
  };
}

function responseContent(r: Route): Json | undefined {
  const res = responseOf(r);
  const content: Json = {};
  if (res.schema) content['application/json'] = { schema: toComponentRefs(res.schema) };
  for (const [type, schema] of Object.entries(res.media ?? {})) content[type] = { schema };
  return Object.keys(content).length ? content : undefined;
}

const problem = {
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
};

export function buildOpenApi(routes: Route[], info: { version: string; serverUrl?: string }): Json {
  const paths: Record<string, Json> = {};
  for (const r of routes) {
    const op: Json = {
      tags: [r.tag],
      summary: r.summary,
      operationId: `${r.method.toLowerCase()}${r.path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_, c) => (c ? c.toUpperCase() : ''))}`,
      security: security[r.access],
      'x-access': r.access,
      parameters: [
        ...[...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
          name: m[1],
          in: 'path',
          required: true,
          schema: { type: 'string' },
        })),
        ...queryParamsOf(r).map((name) => ({
          name,
          in: 'query',
          required: false,
          schema: { type: 'string' },
          ...(QUERY_DOC[name] ? { description: QUERY_DOC[name] } : {}),
        })),
      ],
      responses: {
        [String(responseOf(r).status)]: {
          description: responseOf(r).status === 204 ? 'No content' : (responseOf(r).description ?? 'Success'),
          ...(responseContent(r) ? { content: responseContent(r) } : {}),
        },
        '429': {
          description: 'Too many requests (API Gateway throttling or sign-in protection)',
          ...problem,
        },
        '400': { description: 'Invalid input', ...problem },
        ...(r.access === 'public'
          ? {}
          : { '401': { description: 'Missing or bad credentials', ...problem } }),
        ...(r.access === 'public' || r.access === 'authenticated'
          ? {}
          : { '403': { description: 'Not allowed', ...problem } }),
        '404': { description: 'Not found', ...problem },
      },
    };
    const bodySchema = r.body ?? r.docBody;
    if (bodySchema) {
      const content: Json = {
        'application/json': { schema: { $ref: `#/components/schemas/${bodySchema}` } },
      };
      if (r.yaml) content['application/yaml'] = { schema: { type: 'string' } };
      op.requestBody = { required: true, content };
    }
    paths[r.path] = { ...paths[r.path], [r.method.toLowerCase()]: op };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Anomaly monitoring service API',
      version: info.version,
      description:
        'Daily series from SQL sources, anomaly detection, saved filters, comments and AI summaries. ' +
        'Errors are application/problem+json (RFC 9457).',
    },
    servers: [{ url: info.serverUrl ?? '/' }],
    // Bearer tokens (POST /api/v1/auth/token or the identity provider's) or API keys; public operations
    // override this with an empty list.
    security: [{ bearer: [] }, { apiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'A token from POST /api/v1/auth/token, or from the configured OIDC identity provider',
        },
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'X-API-Key',
          description: 'An API key (POST /api/v1/api-keys); it acts with the role of its owner',
        },
      },
      schemas: {
        ...componentSchemas(),
        Problem: {
          type: 'object',
          required: ['type', 'title', 'status', 'detail'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer' },
            detail: { type: 'string' },
            requestId: { type: 'string' },
            errors: {
              type: 'array',
              items: {
                type: 'object',
                properties: { path: { type: 'string' }, message: { type: 'string' } },
              },
            },
          },
        },
      },
    },
  };
}
