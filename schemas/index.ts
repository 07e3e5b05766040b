/** Every JSON Schema of the service, registered with ajv by lib/shared/validation.ts and listed in the OpenAPI document. */
import alert from './alert.schema.json' with { type: 'json' };
import comment from './comment.schema.json' with { type: 'json' };
import common from './common.schema.json' with { type: 'json' };
import connector from './connector.schema.json' with { type: 'json' };
import connectorPreview from './connector-preview.schema.json' with { type: 'json' };
import cron from './cron.schema.json' with { type: 'json' };
import dataview from './dataview.schema.json' with { type: 'json' };
import draftFromQuery from './draft-from-query.schema.json' with { type: 'json' };
import detectorPreview from './detector-preview.schema.json' with { type: 'json' };
import feedback from './feedback.schema.json' with { type: 'json' };
import filter from './filter.schema.json' with { type: 'json' };
import filterActions from './filter-actions.schema.json' with { type: 'json' };
import filterAnswer from './filter-answer.schema.json' with { type: 'json' };
import summarization from './summarization.schema.json' with { type: 'json' };
import identity from './identity.schema.json' with { type: 'json' };
import jobStatus from './job-status.schema.json' with { type: 'json' };

export const allSchemas: Array<{ $id: string; [key: string]: unknown }> = [
  summarization,
  connector,
  connectorPreview,
  common,
  identity,
  dataview,
  detectorPreview,
  draftFromQuery,
  comment,
  filter,
  filterActions,
  filterAnswer,
  cron,
  jobStatus,
  feedback,
  alert,
];
