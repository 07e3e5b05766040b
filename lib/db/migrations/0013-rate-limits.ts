/**
 * Rate limits shared by every function instance: one fixed-window counter per key (e.g. a user's summary
 * refreshes), counted and checked in one statement.
 */
export default `
CREATE TABLE IF NOT EXISTS rate_limits (
  key text PRIMARY KEY,
  window_start timestamptz NOT NULL,
  count integer NOT NULL
);
CREATE INDEX IF NOT EXISTS rate_limits_window_start ON rate_limits (window_start);
`;
