/**
 * The narrow shapes the use cases ask for, built from the container here: below lib/app a use case
 * names the ports it uses (AlertDeps, SummaryDeps, ConnectorDeps, …), never the whole Container.
 */
import type { AlertDeps } from '../alerts/deliveries';
import { type ConnectorDeps, openNamedSource, type ViewsUsingConnector } from '../connectors/service';
import type { OpenNamedSource } from '../connectors/source-port';
import type { ResetDeps } from '../dataviews/lifecycle';
import { viewsUsingConnector } from '../dataviews/repository';
import { deleteJobsOfView } from '../jobs/repository';
import type { LoadJobDeps } from '../pipeline/load-job';
import { type Logger, logger } from '../shared/logger';
import type { SummaryDeps } from '../summaries/service';
import type { Container } from './container';

/** Alerts: the database, secrets (webhook and SMTP credentials), clock and service time zone. */
export function alertDeps(c: Container, log: Logger = logger): AlertDeps {
  return {
    db: c.db,
    secrets: c.secrets,
    clock: c.clock,
    timeZone: c.config.timeZone,
    maxRecords: c.config.filterMaxRecords,
    log,
  };
}

/** Summaries: as alerts (the language model's credentials are a secret too). */
export function summaryDeps(c: Container, log: Logger = logger): SummaryDeps {
  return {
    db: c.db,
    secrets: c.secrets,
    clock: c.clock,
    timeZone: c.config.timeZone,
    maxRecords: c.config.filterMaxRecords,
    log,
    refreshesPerHour: c.config.summaryRefreshesPerHour,
  };
}

/** Connectors, and, to refuse deleting one in use, the query of lib/dataviews naming the views that load from it. */
export function connectorDeps(c: Container): ConnectorDeps & { viewsUsing: ViewsUsingConnector } {
  return {
    db: c.db,
    secrets: c.secrets,
    clock: c.clock,
    timeoutMs: c.config.connectorTimeoutMs,
    apiQueryTimeoutMs: c.config.apiQueryTimeoutMs,
    viewsUsing: viewsUsingConnector,
  };
}

/** Reading a query's rows through a connector (a load): the sources a test installed, else the connectors. */
export function sourceDeps(c: Container): { openSource: OpenNamedSource } {
  return { openSource: c.sources ?? ((name: string) => openNamedSource(connectorDeps(c), name)) };
}

/**
 * Reading a query's rows for an API request (a new view from a query): the sources a test installed, else
 * the connectors with the short query bound of API paths (API_QUERY_TIMEOUT_MS), not a load's.
 */
export function apiSourceDeps(c: Container): { openSource: OpenNamedSource } {
  return {
    openSource:
      c.sources ??
      ((name: string) =>
        openNamedSource(connectorDeps(c), name, { queryTimeoutMs: c.config.apiQueryTimeoutMs })),
  };
}

/** The load worker: the jobs' ports, and the sources a test or tool installed, else the service's connectors. */
export function loadJobDeps(c: Container): LoadJobDeps {
  return { db: c.db, queue: c.queue, clock: c.clock, config: c.config, ...sourceDeps(c) };
}

/** The data view lifecycle: undeploy and clean remove the view's jobs through lib/jobs. */
export function lifecycleDeps(c: Container): ResetDeps {
  return { db: c.db, clock: c.clock, config: c.config, forgetJobs: deleteJobsOfView };
}
