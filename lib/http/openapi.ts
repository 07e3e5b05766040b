/** Builds the OpenAPI 3.1 document from the route tables and the JSON Schemas of schemas/. */
import { allSchemas } from '../../schemas/index';
import type { Route } from './router';

type Json = Record<string, unknown>;

/** Every schema (and nested schema with its own $id) by id, with $refs rewritten to components. */
function componentSchemas(): Record<string, Json> {
  const out: Record<string, Json> = {};
  const visit = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(visit);
    if (!node || typeof node !== 'object') return node;
    const copy: Json = {};
    for (const [k, v] of Object.entries(node as Json)) {
      if (k === '$schema') continue;
      if (k === '$ref' && typeof v === 'string') {
        copy[k] = v.startsWith('#') ? v : `#/components/schemas/${v.replace(/#.*$/, '')}`;
        continue;
      }
      copy[k] = visit(v);
    }
    const id = (node as Json).$id;
    if (typeof id === 'string') {
      delete copy.$id;
      out[id] = copy;
    }
    return copy;
  };
  for (const s of allSchemas) visit(s);
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

/** The answer of an operation that declares no schema: a JSON object, marked as not further described. */
function responseContent(r: Route): Json | undefined {
  if (r.response?.schema) {
    return { 'application/json': { schema: { $ref: `#/components/schemas/${r.response.schema}` } } };
  }
  if (r.response?.status === 204) return undefined;
  if (r.path === '/api/v1/docs') return { 'text/html': { schema: { type: 'string' } } };
  if (r.path.startsWith('/api/v1/docs/assets/')) return { 'text/plain': { schema: { type: 'string' } } };
  if (r.path === '/api/v1/health')
    return { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } };
  if (r.path === '/api/v1/openapi.json') {
    return { 'application/json': { schema: { $ref: '#/components/schemas/OpenApiDocument' } } };
  }
  // A job request answers the queued job (the `job` answer of GET /jobs/{id}) and licence warnings.
  if (r.response?.status === 202)
    return { 'application/json': { schema: { $ref: '#/components/schemas/QueuedJob' } } };
  return { 'application/json': { schema: { $ref: '#/components/schemas/Answer' } } };
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
        [String(r.response?.status ?? 200)]: {
          description: r.response?.status === 204 ? 'No content' : (r.response?.description ?? 'Success'),
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
        // The answer of an operation without a schema of its own: a JSON object (or array) whose fields the
        // operation's summary names.
        Health: {
          type: 'object',
          required: ['status', 'version', 'database', 'time'],
          properties: {
            status: { const: 'ok' },
            version: { type: 'string' },
            database: {
              type: 'object',
              properties: { kind: { enum: ['postgres', 'pglite'] }, ms: { type: 'number' } },
            },
            time: { type: 'string', format: 'date-time' },
          },
        },
        OpenApiDocument: {
          type: 'object',
          required: ['openapi', 'info', 'paths'],
          properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
        },
        QueuedJob: {
          allOf: [
            { $ref: '#/components/schemas/job' },
            { type: 'object', properties: { warnings: { type: 'array', items: { type: 'string' } } } },
          ],
        },
        Answer: {
          description: "A JSON answer; its fields are named in the operation's summary",
          oneOf: [{ type: 'object', additionalProperties: true }, { type: 'array' }],
        },
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
