/**
 * Feedback given on an incident: one row per member record (so every member shows it and the next detection
 * keeps every member's days out), each naming the incident it was given on. Later cycles' members of the
 * same event are added with the same incident id (lib/incidents/feedback.ts).
 */
export default `
ALTER TABLE anomaly_feedback ADD COLUMN IF NOT EXISTS incident_id integer;
CREATE INDEX IF NOT EXISTS anomaly_feedback_incident ON anomaly_feedback (data_view_id, incident_id) WHERE incident_id IS NOT NULL;
`;
