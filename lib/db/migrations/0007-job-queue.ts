export default `
CREATE UNIQUE INDEX jobs_one_active_load ON jobs (data_view_id) WHERE kind IN ('Load', 'CustomLoad') AND status IN ('pending', 'running');
CREATE INDEX jobs_view_created ON jobs (data_view_id, created_at DESC);
CREATE TABLE schedule_ticks (
  name text PRIMARY KEY,
  last_tick timestamptz NOT NULL
);
`;
