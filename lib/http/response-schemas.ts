/**
 * The answer of every operation, keyed by `METHOD path` of its route: the success status when it is not 200,
 * the JSON Schema of the body (`$ref` names a schema $id: schemas/responses/*.schema.json or schemas/*.json)
 * and other media types the operation can answer. A route that declares `response.schema` in its table keeps
 * it (this map may still add media types or the status). lib/http/openapi.ts reads this map;
 * test/deploy/openapi.test.ts fails when an operation has no schema of its own here or in its route, and
 * test/deploy/openapi-answers.test.ts validates real answers against these schemas.
 */
import type { Route } from './router';

type Json = Record<string, unknown>;

export interface ResponseDoc {
  /** Success status (default: the route's `response.status`, else 200). */
  status?: number;
  /** JSON Schema of the application/json body; none for 204. */
  schema?: Json;
  /** Other media types the operation answers (by Accept or a query parameter). */
  media?: Record<string, Json>;
  description?: string;
}

const ref = (id: string): Json => ({ $ref: id });
const list = (id: string): Json => ({ type: 'array', items: { $ref: id } });
const ids = { type: 'array', items: { type: 'integer' } };
const text = { type: 'string' };
const dateTime = { type: 'string', format: 'date-time' };
const noContent: ResponseDoc = { status: 204, description: 'No content' };

export const responseKey = (r: Pick<Route, 'method' | 'path'>) => `${r.method} ${r.path}`;

export const RESPONSES: Record<string, ResponseDoc> = {
  // System
  'GET /api/v1/health': { schema: ref('health') },
  'GET /api/v1/openapi.json': { schema: ref('openapi-document') },
  'GET /api/v1/docs': { media: { 'text/html': text }, description: 'HTML page (Swagger UI)' },
  'GET /api/v1/docs/assets/{asset}': {
    media: { 'text/css': text, 'text/javascript': text },
    description: 'CSS or JavaScript',
  },
  'GET /api/v1/system/license': { schema: ref('license-usage') },

  // Auth, users, API keys
  'POST /api/v1/auth/token': { schema: ref('token-answer') },
  'GET /api/v1/auth/me': { schema: ref('caller-view') },
  'GET /api/v1/users': { schema: list('user-view') },
  'POST /api/v1/users': { status: 201, schema: ref('user-view'), description: 'The created user' },
  'GET /api/v1/users/{id}': { schema: ref('user-view') },
  'PUT /api/v1/users/{id}': { schema: ref('user-view') },
  'DELETE /api/v1/users/{id}': noContent,
  'GET /api/v1/api-keys': { schema: list('api-key-view') },
  'POST /api/v1/api-keys': {
    status: 201,
    schema: ref('api-key-created'),
    description: 'The created key, with the key itself (shown once)',
  },
  'DELETE /api/v1/api-keys/{id}': noContent,

  // Connectors
  'GET /api/v1/connectors': { schema: list('connector-view') },
  'POST /api/v1/connectors': {
    status: 201,
    schema: ref('connector-view'),
    description: 'The created connector',
  },
  'POST /api/v1/connectors/preview-query': { schema: ref('preview-result') },
  'GET /api/v1/connectors/{name}': { schema: ref('connector-view') },
  'PUT /api/v1/connectors/{name}': { schema: ref('connector-view') },
  'DELETE /api/v1/connectors/{name}': noContent,
  'POST /api/v1/connectors/{name}/test': { schema: ref('connector-test-result') },

  // Settings
  'GET /api/v1/settings/summarization': { schema: ref('summarization-settings-view') },
  'PUT /api/v1/settings/summarization': { schema: ref('summarization-settings-view') },
  'POST /api/v1/settings/summarization/test': { schema: ref('summarization-test-result') },
  'GET /api/v1/settings/alerts': { schema: ref('alert-settings-view') },
  'PUT /api/v1/settings/alerts': { schema: ref('alert-settings-view') },

  // Comments
  'GET /api/v1/comments': { schema: list('comment-record') },
  'GET /api/v1/comments/by-dataview/{dataViewId}': { schema: list('comment-record') },
  'GET /api/v1/comments/by-dataview/{dataViewId}/daterange': { schema: list('comment-record') },
  'GET /api/v1/comments/by-email/{email}': { schema: list('comment-record') },
  'GET /api/v1/comments/{id}': { schema: ref('comment-record') },
  'POST /api/v1/comments': { status: 201, schema: ref('comment-record') },
  'PUT /api/v1/comments/{id}': { schema: ref('comment-record') },
  'POST /api/v1/comments/ui': { status: 201, schema: ref('comment-record') },
  'PUT /api/v1/comments/ui/{id}': { schema: ref('comment-record') },

  // Data views
  'GET /api/v1/dataviews': { schema: list('data-view-summary') },
  'GET /api/v1/dataviews/lite': { schema: list('data-view-lite') },
  'POST /api/v1/dataviews/preview-query': { schema: ref('preview-result') },
  'POST /api/v1/dataviews/validate': { schema: ref('definition-check') },
  'POST /api/v1/dataviews/draft-from-query': { schema: ref('query-draft') },
  'GET /api/v1/dataviews/definition-schema': { schema: ref('definition-schema') },
  'GET /api/v1/dataviews/{id}': {
    media: { 'application/yaml': { type: 'string', description: 'The definition as YAML' } },
  },
  'GET /api/v1/dataviews/{id}/categories': { schema: list('category-info') },
  'POST /api/v1/dataviews/{id}/deploy': { schema: ref('data-view-summary') },
  'POST /api/v1/dataviews/{id}/enable': { schema: ref('data-view-summary') },
  'POST /api/v1/dataviews/{id}/disable': { schema: ref('data-view-summary') },
  'POST /api/v1/dataviews/{id}/undeploy': { schema: ref('data-view-summary') },
  'POST /api/v1/dataviews/{id}/clean': { schema: ref('data-view-summary') },
  'POST /api/v1/cron/validate': { schema: ref('cron-preview') },
  'POST /api/v1/dataviews/{id}/baselines': { schema: ref('baseline-rebuild') },
  'POST /api/v1/dataviews/{id}/preview-detector': { schema: ref('detector-preview-answer') },
  'GET /api/v1/dataviews/{id}/series/{seriesId}': { schema: ref('series-chart') },
  'GET /api/v1/dataviews/{id}/replay/{jobId}/series/{seriesId}': { schema: ref('replay-series-chart') },
  'GET /api/v1/dataviews/{id}/explorer/tree': { schema: ref('explorer-node') },
  'GET /api/v1/dataviews/{id}/explorer/search': { schema: ref('explorer-search') },
  'GET /api/v1/dataviews/{id}/explorer/series/{seriesId}': { schema: ref('explorer-series') },
  'GET /api/v1/dataviews/{id}/contributions': { schema: ref('contributions') },
  'GET /api/v1/dataviews/{id}/incidents/{incidentId}': { schema: ref('filter-answer-anomaly') },

  // Jobs
  'POST /api/v1/dataviews/{id}/jobs/clear': { schema: ref('jobs-cleared') },
  'GET /api/v1/jobs': { schema: list('job') },

  // Filters, sharing, summaries, alerts
  'GET /api/v1/anomaly-filters': { schema: list('filter-record') },
  'GET /api/v1/anomaly-filters/little': { schema: list('little-filter') },
  'GET /api/v1/anomaly-filters/pinned': { schema: list('filter-record') },
  'GET /api/v1/anomaly-filters/shareable-users': { schema: list('shareable-user') },
  'GET /api/v1/anomaly-filters/{id}': { schema: ref('filter-record') },
  'POST /api/v1/anomaly-filters': { status: 201, schema: ref('filter-record') },
  'PUT /api/v1/anomaly-filters': { schema: ref('filter-record') },
  'GET /api/v1/anomaly-filters/{id}/shares': { schema: { ...ids, description: 'User ids' } },
  'POST /api/v1/anomaly-filters/{id}/share': { schema: { ...ids, description: 'User ids' } },
  'PUT /api/v1/anomaly-filters/{id}/pin': { schema: ref('filter-record') },
  'GET /api/v1/anomaly-filters/{id}/summarization': { schema: ref('stored-summary') },
  'GET /api/v1/anomaly-filters/{id}/summarization/prompt': { schema: ref('summary-prompt') },
  'POST /api/v1/anomaly-filters/{id}/summarization/refresh': { schema: ref('stored-summary') },
  'GET /api/v1/anomaly-filters/alerts': { schema: list('subscription-view') },
  'GET /api/v1/anomaly-filters/{id}/alerts': { schema: list('subscription-view') },
  'POST /api/v1/anomaly-filters/{id}/alerts': { schema: ref('subscription-view') },
  'GET /api/v1/anomaly-filters/alerts/{alertId}': { schema: ref('subscription-view') },
  'PUT /api/v1/anomaly-filters/alerts/{alertId}': { schema: ref('subscription-view') },
  'POST /api/v1/anomaly-filters/alerts/{alertId}/test': { schema: ref('alert-test-result') },
  'POST /api/v1/anomaly-filters/alerts/{alertId}/rotate-secret': { schema: ref('subscription-view') },
  'GET /api/v1/anomaly-filters/alerts/{alertId}/deliveries': { schema: list('delivery-row') },

  // Anomalies and feedback
  'GET /api/v1/anomalies/by-filter/{id}': {
    media: { 'text/csv': { type: 'string', description: 'format=csv or Accept: text/csv: every record' } },
  },
  'GET /api/v1/anomalies/feedback': { schema: list('feedback-record') },
  'PUT /api/v1/anomalies/feedback': { schema: ref('feedback-record') },
  'GET /api/v1/anomalies/feedback/{id}': { schema: ref('feedback-record') },
  'PUT /api/v1/anomalies/feedback/incident': { schema: ref('incident-feedback') },
  'DELETE /api/v1/anomalies/feedback/incident/{dataViewId}/{incidentId}': noContent,
};

/** Schemas of answers too small for a file of their own. */
export const inlineResponseSchemas: Record<string, Json> = {
  health: {
    type: 'object',
    required: ['status', 'version', 'database', 'time'],
    additionalProperties: false,
    properties: {
      status: { const: 'ok' },
      version: text,
      database: {
        type: 'object',
        required: ['kind', 'ms'],
        additionalProperties: false,
        properties: { kind: { enum: ['postgres', 'pglite'] }, ms: { type: 'number' } },
      },
      time: dateTime,
    },
  },
  'openapi-document': {
    type: 'object',
    required: ['openapi', 'info', 'paths', 'components'],
    properties: {
      openapi: { const: '3.1.0' },
      info: { type: 'object' },
      paths: { type: 'object' },
      components: { type: 'object' },
    },
  },
  'queued-job': {
    allOf: [{ $ref: 'job' }, { type: 'object', properties: { warnings: { type: 'array', items: text } } }],
  },
  'shareable-user': {
    type: 'object',
    required: ['id', 'email'],
    additionalProperties: false,
    properties: { id: { type: 'integer' }, email: text },
  },
  'jobs-cleared': {
    type: 'object',
    required: ['dataViewId', 'removed', 'jobIds'],
    additionalProperties: false,
    properties: {
      dataViewId: { type: 'integer' },
      removed: { type: 'integer', description: 'Pending jobs removed' },
      jobIds: ids,
      cancelled: { ...ids, description: 'Running jobs cancelled (their worker stopped, or force=true)' },
    },
  },
};
