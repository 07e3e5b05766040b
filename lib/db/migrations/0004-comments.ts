export default `
CREATE TABLE comments (
  id serial PRIMARY KEY,
  text text NOT NULL,
  email text NOT NULL,
  data_view_id integer NOT NULL REFERENCES data_views(id) ON DELETE CASCADE,
  date_from date NOT NULL,
  date_to date NOT NULL,
  categories jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (date_from <= date_to)
);
CREATE INDEX comments_view_dates ON comments (data_view_id, date_from, date_to);
CREATE INDEX comments_email ON comments (lower(email));
`;
