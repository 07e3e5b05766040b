/** Ordered migrations; a migration is never edited once released, only followed by a new one. */
import identity from './0001-identity';
import dataviews from './0002-dataviews';
import connectors from './0003-connectors';
import comments from './0004-comments';
import jobs from './0005-jobs';
import filters from './0006-filters';
import jobQueue from './0007-job-queue';
import hardening from './0008-hardening';
import recipientSummaries from './0009-recipient-summaries';
import anomalyMeasure from './0009-anomaly-measure';
import feedbackAlerts from './0010-feedback-alerts';
import hardeningRound2 from './0011-hardening-round-2';
import ratioMeasure from './0012-ratio-measure';
import rateLimits from './0013-rate-limits';
import seriesChunks from './0014-series-chunks';
import incidentFeedback from './0015-incident-feedback';
import replays from './0016-replays';
import alertNames from './0017-alert-names';
import eventFeedback from './0018-event-feedback';

export const migrations: Array<{ name: string; sql: string }> = [
  { name: '0001-identity', sql: identity },
  { name: '0002-dataviews', sql: dataviews },
  { name: '0003-connectors', sql: connectors },
  { name: '0004-comments', sql: comments },
  { name: '0005-jobs', sql: jobs },
  { name: '0006-filters', sql: filters },
  { name: '0007-job-queue', sql: jobQueue },
  { name: '0008-hardening', sql: hardening },
  { name: '0009-recipient-summaries', sql: recipientSummaries },
  { name: '0009-anomaly-measure', sql: anomalyMeasure },
  { name: '0010-feedback-alerts', sql: feedbackAlerts },
  { name: '0011-hardening-round-2', sql: hardeningRound2 },
  { name: '0012-ratio-measure', sql: ratioMeasure },
  { name: '0013-rate-limits', sql: rateLimits },
  { name: '0014-series-chunks', sql: seriesChunks },
  { name: '0015-incident-feedback', sql: incidentFeedback },
  { name: '0016-replays', sql: replays },
  { name: '0017-alert-names', sql: alertNames },
  { name: '0018-event-feedback', sql: eventFeedback },
];
