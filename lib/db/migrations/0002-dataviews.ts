export default `
CREATE TABLE data_views (
  id serial PRIMARY KEY,
  name text NOT NULL,
  domain text NOT NULL,
  description text NOT NULL DEFAULT '',
  tags text[] NOT NULL DEFAULT '{}',
  connector text NOT NULL,
  definition jsonb NOT NULL,
  deployed boolean NOT NULL DEFAULT false,
  enabled boolean NOT NULL DEFAULT false,
  schema_name text,
  deployed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX data_views_domain_name_key ON data_views (lower(domain), lower(name));
CREATE TABLE user_data_views (
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  data_view_id integer NOT NULL REFERENCES data_views(id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, data_view_id)
);
CREATE INDEX user_data_views_view ON user_data_views (data_view_id);
`;
