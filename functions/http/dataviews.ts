import { apiSourceDeps, connectorDeps, lifecycleDeps } from '../../lib/app/deps';
import { getContainer } from '../container';
import { previewQuery } from '../../lib/connectors/service';
import { prefersYaml } from '../../lib/dataviews/accept';
import { compactDefinition } from '../../lib/dataviews/definition/compact';
import { editorSchema } from '../../lib/dataviews/definition/editor-schema';
import { definitionToYaml } from '../../lib/dataviews/definition/index';
import { validateDraft } from '../../lib/dataviews/draft';
import {
  cleanDataView,
  deployDataView,
  disableDataView,
  enableDataView,
  undeployDataView,
} from '../../lib/dataviews/lifecycle';
import {
  createDataView,
  deleteDataView,
  getDataView,
  listDataViews,
  listDataViewsLite,
  updateDataView,
} from '../../lib/dataviews/service';
import { getDataViewCategories } from '../../lib/dataviews/categories';
import { getDataViewStatus } from '../../lib/jobs/view-status';
import { draftFromQuery, type DraftFromQueryInput } from '../../lib/pipeline/draft-from-query';
import { httpHandler } from '../../lib/http/handler';
import { booleanParam, intParam, optionalInt } from '../../lib/http/params';
import { created, HttpResult, noContent, type Route } from '../../lib/http/router';
import { routes as incidentRoutes } from './incidents';
import { routes as replayRoutes } from './replay';
import { routes as explorerRoutes } from './series-explorer';

const base = '/api/v1/dataviews';
const tag = 'Data views';
const deps = getContainer;
const id = (params: Record<string, string>) => intParam(params.id, 'id');
const summary = { status: 200, description: 'The data view summary after the action' };

/** One lifecycle action route: POST /{id}/<name>. */
function action(name: string, text: string, run: typeof undeployDataView): Route {
  return {
    method: 'POST',
    path: `${base}/{id}/${name}`,
    access: 'admin',
    tag,
    summary: text,
    response: summary,
    handle: async ({ caller, params }) => run(lifecycleDeps(await deps()), caller, id(params)),
  };
}

export const routes: Route[] = [
  {
    method: 'GET',
    path: base,
    access: 'read',
    tag,
    summary: 'List the data views assigned to the caller; query filters name (part, any case), domain, tag',
    handle: async ({ caller, query }) =>
      listDataViews(await deps(), caller, { name: query.name, domain: query.domain, tag: query.tag }),
  },
  {
    method: 'GET',
    path: `${base}/lite`,
    access: 'read',
    tag,
    summary: 'Lite list: id, name, domain, state',
    handle: async ({ caller }) => listDataViewsLite(await deps(), caller),
  },
  {
    method: 'POST',
    path: base,
    access: 'admin',
    tag,
    yaml: true,
    docBody: 'dataview',
    summary:
      'Create a data view from Fact JSON or a YAML document (application/yaml); blocked at the licence limit',
    response: { status: 201, description: 'The stored definition with id and state', schema: 'dataview' },
    handle: async ({ caller, body }) => created(await createDataView(await deps(), caller, body)),
  },
  {
    method: 'GET',
    path: `${base}/definition-schema`,
    access: 'admin',
    tag,
    summary:
      "The JSON Schema of a definition with each detector type's params spelt out (kind, range, default, meaning): what the editor completes and explains with",
    handle: async () => editorSchema(),
  },
  {
    method: 'POST',
    path: `${base}/validate`,
    access: 'admin',
    tag,
    yaml: true,
    docBody: 'dataview',
    summary:
      'Check a definition (JSON or YAML) as saving would, without saving: 400 (409 for a taken name or a locked field) with every field at fault, else the definition as it would be stored and its compact form; id checks it as an update of that view',
    response: { status: 200, description: '{valid: true, definition, compact}' },
    handle: async ({ caller, body, query }) =>
      validateDraft(await deps(), caller, body, optionalInt(query.id, 'id')),
  },
  {
    method: 'POST',
    path: `${base}/draft-from-query`,
    access: 'admin',
    tag,
    summary:
      "A new view from a query: reads a sample of the query's rows (at most 50,000), says what each column is, suggests the date, value, count and categories, the parent links the rows support and the number of series, and drafts the definition (compact) for the choices given; nothing is stored",
    body: 'draft-from-query',
    handle: async ({ caller, body, signal }) =>
      draftFromQuery({ ...apiSourceDeps(await getContainer()), signal }, caller, body as DraftFromQueryInput),
  },
  {
    method: 'POST',
    path: `${base}/preview-query`,
    access: 'admin',
    tag,
    summary: 'Sample data preview: the first 10 rows and the columns of a query through a named connector',
    body: 'connector-preview',
    handle: async ({ caller, body }) => {
      const { connector, query, limit } = body as { connector: string; query: string; limit?: number };
      return previewQuery(connectorDeps(await getContainer()), caller, connector, query, limit);
    },
  },
  {
    method: 'GET',
    path: `${base}/{id}`,
    access: 'read',
    tag,
    summary:
      'The definition (Fact JSON) with id, state, createdAt, updatedAt; YAML when Accept prefers application/yaml; compact=true leaves out what equals the defaults. A data user gets it without source.connector, the load queries and metadata.dataSource',
    response: { status: 200, description: 'The definition', schema: 'dataview' },
    handle: async ({ caller, params, headers, query }) => {
      const stored = await getDataView(await deps(), caller, id(params));
      const { id: viewId, state, createdAt, updatedAt, ...def } = stored;
      const doc = booleanParam(query.compact, 'compact')
        ? { id: viewId, state, createdAt, updatedAt, ...compactDefinition(def) }
        : stored;
      if (!prefersYaml(headers.accept)) return doc;
      return new HttpResult(200, definitionToYaml(doc), {
        'content-type': 'application/yaml; charset=utf-8',
      });
    },
  },
  {
    method: 'PUT',
    path: `${base}/{id}`,
    access: 'admin',
    tag,
    yaml: true,
    docBody: 'dataview',
    summary: 'Replace the definition (JSON or YAML); name, domain and categories are locked while deployed',
    response: { status: 200, description: 'The stored definition', schema: 'dataview' },
    handle: async ({ caller, params, body }) => updateDataView(await deps(), caller, id(params), body),
  },
  {
    method: 'DELETE',
    path: `${base}/{id}`,
    access: 'admin',
    tag,
    summary: 'Delete a prepared data view (undeploy a deployed one first)',
    response: { status: 204, description: 'Deleted' },
    handle: async ({ caller, params }) => {
      await deleteDataView(await deps(), caller, id(params));
      return noContent();
    },
  },
  {
    method: 'GET',
    path: `${base}/{id}/status`,
    access: 'read',
    tag,
    summary:
      'Processing status: state, tables, estimated row counts, loaded range and counts, active jobs, the last job and the newest job of each kind (load, custom load, process) with message, rows and progress; never waits behind a load',
    response: { status: 200, description: 'The status', schema: 'dataview-status' },
    handle: async ({ caller, params }) => getDataViewStatus(await deps(), caller, id(params)),
  },
  {
    method: 'GET',
    path: `${base}/{id}/categories`,
    access: 'admin',
    tag,
    summary: 'Categories with label, parent and (once deployed) their values in cat_map',
    handle: async ({ caller, params }) => getDataViewCategories(await deps(), caller, id(params)),
  },
  action('deploy', 'Deploy: validate again, create the tables; the view becomes disabled', deployDataView),
  action('enable', 'Enable a deployed view (jobs become allowed)', enableDataView),
  action('disable', 'Disable a deployed view', disableDataView),
  action(
    'undeploy',
    'Delete the deployment: drop every table, datum and job; back to prepared',
    undeployDataView,
  ),
  action(
    'clean',
    'Clean the deployment: empty the data tables and remove the jobs; tables stay',
    cleanDataView,
  ),
  // The series explorer (functions/http/series-explorer.ts) lives under /dataviews/{id}/explorer.
  ...explorerRoutes,
  // Incidents and contributions (functions/http/incidents.ts).
  ...incidentRoutes,
  ...replayRoutes,
];

export const handler = httpHandler(routes, getContainer);
