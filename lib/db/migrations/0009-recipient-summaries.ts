export default `
CREATE TABLE filter_recipient_summaries (
  filter_id integer NOT NULL REFERENCES filters(id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  summary_text text,
  summary_generated_at timestamptz,
  summary_meta jsonb,
  summary_error text,
  PRIMARY KEY (filter_id, user_id)
);
`;
