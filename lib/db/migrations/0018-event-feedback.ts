/**
 * Feedback given on an incident also keeps the event's footprint (its direction, window, member series and
 * root causes by their categories): it outlives the incident id, so at every later cycle the records of the
 * same event, however regrouped, and its echoes inherit the feedback (lib/incidents/event-feedback.ts).
 */
export default `
CREATE TABLE IF NOT EXISTS event_feedback (
  id serial PRIMARY KEY,
  data_view_id integer NOT NULL,
  incident_id integer NOT NULL,
  result text NOT NULL CHECK (result IN ('Positive', 'Negative')),
  start_date date NOT NULL,
  end_date date NOT NULL,
  series jsonb NOT NULL,
  causes jsonb NOT NULL,
  status text NOT NULL,
  note text NOT NULL DEFAULT '',
  user_id integer,
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (data_view_id, incident_id)
);
`;
