export default `
CREATE TABLE connectors (
  id serial PRIMARY KEY,
  name text NOT NULL,
  type text NOT NULL CHECK (type IN ('mssql', 'pgsql', 'oracle', 'snowflake', 'fabric')),
  description text NOT NULL DEFAULT '',
  secret_ref text NOT NULL,
  masked_configuration jsonb NOT NULL,
  status text NOT NULL DEFAULT 'untested' CHECK (status IN ('untested', 'active', 'failed')),
  last_tested_at timestamptz,
  last_test_message text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX connectors_name_key ON connectors (lower(name));
`;
