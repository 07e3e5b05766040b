/** Feedback on anomaly records (docs/feedback.md); served by the anomalies function (its prefix). */
import { serviceDb } from '../container';
import {
  deleteFeedback,
  type FeedbackInput,
  getFeedback,
  listFeedback,
  putFeedback,
} from '../../lib/feedback/service';
import {
  deleteIncidentFeedback,
  type IncidentFeedbackInput,
  putIncidentFeedback,
} from '../../lib/incidents/feedback';
import { recordEndDate } from '../../lib/process-job';
import { intParam, optionalInt } from '../../lib/http/params';
import { noContent, type Route } from '../../lib/http/router';

const base = '/api/v1/anomalies/feedback';
const tag = 'Feedback';

export const routes: Route[] = [
  {
    method: 'GET',
    path: base,
    access: 'read',
    tag,
    summary:
      'Feedback on records of the data views the caller can read: ?dataViewId=&seriesId=&status=confirmed|expected|not-anomaly',
    handle: async ({ caller, query }) =>
      listFeedback(await serviceDb(), caller, {
        dataViewId: optionalInt(query.dataViewId, 'dataViewId'),
        seriesId: optionalInt(query.seriesId, 'seriesId'),
        status: query.status === '' ? undefined : query.status,
      }),
  },
  {
    method: 'PUT',
    path: base,
    access: 'write',
    tag,
    summary:
      'Mark a record confirmed, expected or not-anomaly (optional note) by its stable key {dataViewId, seriesId, measure, type, startDate}; the author or an admin may change it',
    body: 'feedback-put',
    response: { status: 200, description: 'The stored feedback' },
    handle: async ({ caller, body }) =>
      putFeedback(await serviceDb(), caller, body as FeedbackInput, recordEndDate),
  },
  {
    method: 'PUT',
    path: `${base}/incident`,
    access: 'write',
    tag,
    summary:
      'Mark an incident confirmed, expected or not-anomaly (optional note): the feedback is stored on every member record (every series, measure and level of the event) and reaches members the event gains at later cycles',
    body: 'feedback-incident-put',
    response: { status: 200, description: 'The feedback stored on each member record' },
    handle: async ({ caller, body }) =>
      putIncidentFeedback(await serviceDb(), caller, body as IncidentFeedbackInput),
  },
  {
    method: 'DELETE',
    path: `${base}/incident/{dataViewId}/{incidentId}`,
    access: 'write',
    tag,
    summary: 'Remove the feedback given on an incident from every member (its author or an admin)',
    response: { status: 204, description: 'Removed' },
    handle: async ({ caller, params }) => {
      await deleteIncidentFeedback(
        await serviceDb(),
        caller,
        intParam(params.dataViewId, 'dataViewId'),
        intParam(params.incidentId, 'incidentId'),
      );
      return noContent();
    },
  },
  {
    method: 'GET',
    path: `${base}/{id}`,
    access: 'read',
    tag,
    summary: 'One feedback',
    handle: async ({ caller, params }) => getFeedback(await serviceDb(), caller, intParam(params.id, 'id')),
  },
  {
    method: 'DELETE',
    path: `${base}/{id}`,
    access: 'write',
    tag,
    summary: 'Remove a feedback (its author or an admin)',
    response: { status: 204, description: 'Removed' },
    handle: async ({ caller, params }) => {
      await deleteFeedback(await serviceDb(), caller, intParam(params.id, 'id'));
      return noContent();
    },
  },
];
