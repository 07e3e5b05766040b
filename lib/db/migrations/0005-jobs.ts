export default `
CREATE TABLE jobs (
  id serial PRIMARY KEY,
  data_view_id integer NOT NULL REFERENCES data_views(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('Load', 'Process', 'CustomLoad')),
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'failed', 'finished')),
  trigger text NOT NULL DEFAULT 'api',
  attempts integer NOT NULL DEFAULT 0,
  error text,
  detail jsonb NOT NULL DEFAULT '{}',
  requested_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  started_at timestamptz,
  finished_at timestamptz
);
CREATE INDEX jobs_view_status ON jobs (data_view_id, status);
CREATE INDEX jobs_status_created ON jobs (status, created_at);
`;
