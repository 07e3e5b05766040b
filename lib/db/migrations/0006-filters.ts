export default `
CREATE TABLE filters (
  id serial PRIMARY KEY,
  owner_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  name text NOT NULL,
  settings jsonb NOT NULL,
  summary_text text,
  summary_generated_at timestamptz,
  summary_meta jsonb,
  summary_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX filters_owner ON filters (owner_id);
CREATE TABLE filter_shares (
  filter_id integer NOT NULL REFERENCES filters(id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (filter_id, user_id)
);
CREATE INDEX filter_shares_user ON filter_shares (user_id);
CREATE TABLE filter_pins (
  filter_id integer NOT NULL REFERENCES filters(id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  PRIMARY KEY (filter_id, user_id)
);
CREATE TABLE settings (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  secret_ref text,
  updated_at timestamptz NOT NULL DEFAULT now()
);
`;
