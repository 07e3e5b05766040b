/**
 * What other modules may use of the process job. The anomaly records table (`all_anomalies`, with its
 * `incident_id`) is the process job's: other modules read and write it through these functions
 * (docs/architecture.md, Per-view tables).
 */
export {
  addIncidentIdColumn,
  anomaliesTable,
  clearStaleIncidentIds,
  countRecordsBySeries,
  incidentIdColumnExists,
  type MemberKeyRow,
  type RecordKey,
  readGroupingRecords,
  readIncidentMemberKeys,
  readSeriesRecordsJson,
  recordEndDate,
  recordsHaveColumn,
  writeIncidentIds,
} from './records';
