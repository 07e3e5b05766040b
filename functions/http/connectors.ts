import { connectorDeps } from '../../lib/app/deps';
import { getContainer } from '../container';
import {
  type ConnectorInput,
  createConnector,
  deleteConnector,
  getConnector,
  listConnectors,
  previewQuery,
  testConnector,
  updateConnector,
} from '../../lib/connectors/service';
import { httpHandler } from '../../lib/http/handler';
import { created, noContent, type Route } from '../../lib/http/router';
import { logger } from '../../lib/shared/logger';

const deps = async () => ({ ...connectorDeps(await getContainer()), log: logger });

export const routes: Route[] = [
  {
    method: 'GET',
    path: '/api/v1/connectors',
    access: 'admin',
    tag: 'Connectors',
    summary: 'List connectors with masked configuration and state (active, failed, untested)',
    handle: async ({ caller }) => listConnectors(await deps(), caller),
  },
  {
    method: 'POST',
    path: '/api/v1/connectors',
    access: 'admin',
    tag: 'Connectors',
    summary: 'Create a connector; its configuration is encrypted and never returned',
    body: 'connector-create',
    handle: async ({ caller, body }) =>
      created(await createConnector(await deps(), caller, body as ConnectorInput)),
  },
  {
    method: 'POST',
    path: '/api/v1/connectors/preview-query',
    access: 'admin',
    tag: 'Connectors',
    summary: 'Sample data preview: the first 10 rows of a query through a named connector',
    body: 'connector-preview',
    handle: async ({ caller, body }) => {
      const { connector, query, limit } = body as { connector: string; query: string; limit?: number };
      return previewQuery(await deps(), caller, connector, query, limit);
    },
  },
  {
    method: 'GET',
    path: '/api/v1/connectors/{name}',
    access: 'admin',
    tag: 'Connectors',
    summary: 'One connector by name (configuration masked)',
    handle: async ({ caller, params }) => getConnector(await deps(), caller, params.name),
  },
  {
    method: 'PUT',
    path: '/api/v1/connectors/{name}',
    access: 'admin',
    tag: 'Connectors',
    summary: 'Update description, type or configuration; without configuration the stored secret is kept',
    body: 'connector-update',
    handle: async ({ caller, params, body }) =>
      updateConnector(await deps(), caller, params.name, body as ConnectorInput),
  },
  {
    method: 'DELETE',
    path: '/api/v1/connectors/{name}',
    access: 'admin',
    tag: 'Connectors',
    summary: 'Delete a connector that no data view uses',
    handle: async ({ caller, params }) => {
      await deleteConnector(await deps(), caller, params.name);
      return noContent();
    },
  },
  {
    method: 'POST',
    path: '/api/v1/connectors/{name}/test',
    access: 'admin',
    tag: 'Connectors',
    summary: 'Test connectivity now: success makes it active, failure failed, with a message free of secrets',
    handle: async ({ caller, params }) => testConnector(await deps(), caller, params.name),
  },
];

export const handler = httpHandler(routes, getContainer);
