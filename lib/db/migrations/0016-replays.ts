/**
 * Replays (lib/replay): a job kind of its own, and per replay job the definition it replays and, once it
 * finished, the difference it found. A replay's row goes with its job.
 */
export default `
ALTER TABLE jobs DROP CONSTRAINT IF EXISTS jobs_kind_check;
ALTER TABLE jobs ADD CONSTRAINT jobs_kind_check CHECK (kind IN ('Load', 'Process', 'CustomLoad', 'Replay'));
CREATE TABLE IF NOT EXISTS replays (
  job_id integer PRIMARY KEY REFERENCES jobs(id) ON DELETE CASCADE,
  data_view_id integer NOT NULL REFERENCES data_views(id) ON DELETE CASCADE,
  definition jsonb NOT NULL,
  result jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
`;
