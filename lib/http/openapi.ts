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
      parameters: [...r.path.matchAll(/\{(\w+)\}/g)].map((m) => ({
        name: m[1],
        in: 'path',
        required: true,
        schema: { type: 'string' },
      })),
      responses: {
        [String(r.response?.status ?? (r.method === 'POST' ? 200 : 200))]: {
          description: r.response?.description ?? 'Success',
          ...(r.response?.schema
            ? {
                content: {
                  'application/json': { schema: { $ref: `#/components/schemas/${r.response.schema}` } },
                },
              }
            : {}),
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
    paths,
    components: {
      securitySchemes: {
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
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
