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
  write: [{ bearer: [] }, { apiKey: [] }],
  admin: [{ bearer: [] }, { apiKey: [] }],
  process: [{ bearer: [] }, { apiKey: [] }],
  authenticated: [{ bearer: [] }, { apiKey: [] }],
  public: [],
};

/**
 * Query parameters an operation reads: `query.x` / `query['x']` in its handler, and the parameters of the
 * helpers it hands the query to (the whole query object, or a window of it). A handler that hands `query`
 * to a helper not listed here fails test/deploy/openapi.test.ts.
 */
// `name)?(`: a bundler or test runner may call an imported helper as `(0, module.name)(…)`.
export const QUERY_HELPERS: Array<[RegExp, string[]]> = [
  // functions/http/comments.ts: window(query) reads the date window.
  [/\bwindow\(query\)/, ['dateFrom', 'dateTo']],
  [/\bmembersParam\)?\(query\)/, ['members', 'showDismissed']],
  [
    /\banomaliesByFilterPaged\)?\(/,
    ['offset', 'pageSize', 'sortBy', 'order', 'format', 'members', 'showDismissed'],
  ],
  [/\bexplorerTree\)?\(/, ['c.{category}', 'dimension', 'search', 'offset', 'limit']],
  [/\bexplorerSearch\)?\(/, ['q', 'limit']],
  [/\bseriesContributions\)?\(/, ['categories', 'from', 'to', 'measure', 'weeks', 'limit']],
];

const int = (minimum = 0, maximum?: number) => ({
  type: 'integer',
  minimum,
  ...(maximum ? { maximum } : {}),
});
const bool = { type: 'boolean' };
const str = { type: 'string' };
const date = { type: 'string', format: 'date' };

/** Schema and description of every query parameter, by name; `<METHOD path> <name>` where operations differ. */
export const QUERY_DOC: Record<string, { schema: Record<string, unknown>; description: string }> = {
  limit: { schema: int(1), description: 'Most items in the answer' },
  'GET /api/v1/jobs limit': { schema: int(1, 1000), description: 'Most jobs in the answer (default 100)' },
  'GET /api/v1/dataviews/{id}/explorer/tree limit': {
    schema: int(1, 500),
    description: 'Children per page (default 100); needs dimension',
  },
  'GET /api/v1/dataviews/{id}/explorer/search limit': {
    schema: int(1, 200),
    description: 'Most series in the answer (default 50)',
  },
  'GET /api/v1/dataviews/{id}/contributions limit': {
    schema: int(1, 500),
    description: 'Values listed per category (default 10)',
  },
  'GET /api/v1/dataviews/{id}/contributions categories': {
    schema: str,
    description: 'The series: name=value pairs separated by ; (a category left out = all; none = the total)',
  },
  'GET /api/v1/dataviews/{id}/contributions from': {
    schema: date,
    description: 'First day of the window, yyyy-MM-dd (required)',
  },
  'GET /api/v1/dataviews/{id}/contributions to': {
    schema: date,
    description: 'Last day of the window, yyyy-MM-dd (required; at most 366 days)',
  },
  'GET /api/v1/dataviews/{id}/contributions weeks': {
    schema: int(1, 12),
    description: 'Weeks before the window that make the expectation (default 4)',
  },
  offset: { schema: int(0), description: 'Items to skip (paging)' },
  pageSize: { schema: int(1, 1000), description: 'Records per page' },
  sortBy: { schema: str, description: 'rank (default), a record field or categories.<name>' },
  order: { schema: { enum: ['asc', 'desc'] }, description: 'Sort order (default asc)' },
  format: { schema: { enum: ['csv'] }, description: 'csv answers every record as CSV (as Accept: text/csv)' },
  members: { schema: bool, description: 'true: each merged event carries its member records' },
  showDismissed: {
    schema: bool,
    description:
      "false: records and incidents marked expected or not an anomaly are left out, whatever the filter's hideDismissed; true: they are listed (after every other row); absent: the filter's hideDismissed",
  },
  dataViewId: { schema: int(1), description: 'Only this data view (id)' },
  'POST /api/v1/dataviews/validate id': {
    schema: int(1),
    description: 'Check the definition as an update of this view (locked fields, its own name)',
  },
  compact: { schema: bool, description: 'true: leave out every setting and param that equals its default' },
  seriesId: { schema: int(1), description: 'Only this series (id)' },
  force: {
    schema: bool,
    description: 'true: cancel every running job of the view, not only those whose worker stopped',
  },
  dateFrom: { schema: date, description: 'First day, yyyy-MM-dd' },
  dateTo: { schema: date, description: 'Last day, yyyy-MM-dd' },
  all: { schema: bool, description: "Admins: true lists everyone's subscriptions" },
  name: { schema: str, description: 'Only views whose name contains this (any case)' },
  domain: { schema: str, description: 'Only views of this domain' },
  tag: { schema: str, description: 'Only views with this tag' },
  'GET /api/v1/jobs status': {
    schema: { enum: ['pending', 'running', 'failed', 'finished'] },
    description: 'Only jobs in this status',
  },
  'GET /api/v1/anomalies/feedback status': {
    schema: { enum: ['confirmed', 'expected', 'not-anomaly'] },
    description: 'Only feedback with this status',
  },
  kind: {
    schema: { enum: ['Load', 'Process', 'CustomLoad', 'Replay'] },
    description: 'Only jobs of this kind',
  },
  type: { schema: str, description: "Detector type (e.g. DOD); default the view's first detector" },
  detectorIndex: {
    schema: int(0),
    description: "Position of the detector among the definition's detectors (0 = first), when of `type`",
  },
  measure: {
    schema: { enum: ['value', 'count', 'ratio'] },
    description: 'The measure to draw (default value)',
  },
  instructions: { schema: str, description: 'Other instructions than the filter’s, for this prompt only' },
  'c.{category}': {
    schema: str,
    description:
      'A category value of the node, one parameter per category: c.<name>=<value> (left out = all)',
  },
  dimension: { schema: str, description: 'The category whose values (children of the node) to list' },
  search: { schema: str, description: 'Only children whose value contains this (any case); needs dimension' },
  q: { schema: str, description: 'Text the category values contain (any case)' },
};

/** The schema and description of a query parameter of an operation (undefined: undocumented). */
export function queryDocOf(route: Route, name: string) {
  return QUERY_DOC[`${route.method} ${route.path} ${name}`] ?? QUERY_DOC[name];
}

export function queryParamsOf(route: Route): string[] {
  const source = String(route.handle);
  const names = new Set<string>();
  for (const m of source.matchAll(/\bquery\??\.(\w+)|\bquery\??\.?\[['"](\w+)['"]\]/g))
    names.add(m[1] ?? m[2]);
  for (const [re, helperNames] of QUERY_HELPERS)
    if (re.test(source)) for (const n of helperNames) names.add(n);
  return [...names].sort();
}

/** Whether a handler hands the whole query object on (to a helper that reads parameters of its own). */
export function handsQueryOn(route: Route): boolean {
  const source = String(route.handle);
  // The handler takes `query` from the request and uses it other than as `query.x` / `query?.x` / `query[…]`.
  const [, params = '', body = ''] = /^[^(]*\(([^)]*)\)([\s\S]*)$/.exec(source) ?? [];
  return /\bquery\b/.test(params) && /\bquery\b(?!\s*(\?\.|\.|\[))/.test(body);
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
          schema: queryDocOf(r, name)?.schema ?? { type: 'string' },
          ...(queryDocOf(r, name) ? { description: queryDocOf(r, name)?.description } : {}),
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
        '413': {
          description:
            'The answer would pass the 6 MB a response can carry, or a bound of a filter run (docs/filters.md, Bounds): ask for a page or less',
          ...problem,
        },
        '503': {
          description: 'A query ran past the database statement timeout of the stage (query-timeout)',
          ...problem,
        },
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
