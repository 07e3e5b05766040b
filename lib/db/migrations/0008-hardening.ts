export default `
ALTER TABLE users ADD COLUMN token_version integer NOT NULL DEFAULT 0;
CREATE TABLE sign_in_throttle (
  key text PRIMARY KEY,
  failures integer NOT NULL DEFAULT 0,
  last_failure_at timestamptz NOT NULL,
  locked_until timestamptz
);
ALTER TABLE jobs ADD COLUMN lease_until timestamptz;
`;
