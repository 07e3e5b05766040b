/**
 * Replay requests (docs/dataviews.md, "Replay"): served by the data views function, which already checks
 * definitions and queues jobs, so the detection function carries neither the definition checks nor the queue.
 */
import { readReplay, requestReplay } from '../../lib/replay/service';
import { intParam } from '../../lib/http/params';
import { accepted, type Route } from '../../lib/http/router';
import { getContainer } from '../container';

const tag = 'Data views';
const id = (params: Record<string, string>) => intParam(params.id, 'id');

export const routes: Route[] = [
  {
    method: 'POST',
    path: '/api/v1/dataviews/{id}/replay',
    access: 'admin',
    tag,
    yaml: true,
    docBody: 'dataview',
    summary:
      'Replay a changed definition (JSON or YAML, unsaved) over the loaded history: checked as saving would check it, then run as a Replay job that publishes nothing; poll GET …/replay/{jobId} for the difference',
    response: { status: 202, description: 'The Replay job', schema: 'job' },
    handle: async ({ caller, params, body }) =>
      accepted(await requestReplay(await getContainer(), caller, id(params), body)),
  },
  {
    method: 'GET',
    path: '/api/v1/dataviews/{id}/replay/{jobId}',
    access: 'admin',
    tag,
    summary:
      'A replay: its job (status) and, once finished, the difference with the stored anomalies — counts, counts by type and measure, the added, removed and changed records (newest first, at most 500 each) and the stored incidents they touch',
    response: { status: 200, description: '{job, result}', schema: 'replay' },
    handle: async ({ caller, params }) =>
      readReplay(await getContainer(), caller, id(params), intParam(params.jobId, 'jobId')),
  },
];
