/**
 * Feedback on anomalies (docs/feedback.md) and alert subscriptions on saved filters (docs/alerts.md).
 * Feedback sits on the stable key of a record (view, series, measure, type, start date), not on the
 * anomaly id, so it survives re-detection. Alerts remember every record key they sent per subscription.
 */
export default `
CREATE TABLE anomaly_feedback (
  id serial PRIMARY KEY,
  data_view_id integer NOT NULL REFERENCES data_views(id) ON DELETE CASCADE,
  series_id integer NOT NULL,
  measure text NOT NULL CHECK (measure IN ('value', 'count')),
  type text NOT NULL,
  start_date date NOT NULL,
  end_date date NOT NULL,
  status text NOT NULL CHECK (status IN ('confirmed', 'expected', 'not-anomaly')),
  note text NOT NULL DEFAULT '',
  user_id integer REFERENCES users(id) ON DELETE SET NULL,
  email text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (start_date <= end_date),
  UNIQUE (data_view_id, series_id, measure, type, start_date)
);
CREATE INDEX anomaly_feedback_series ON anomaly_feedback (data_view_id, series_id, start_date);

CREATE TABLE alert_subscriptions (
  id serial PRIMARY KEY,
  filter_id integer NOT NULL REFERENCES filters(id) ON DELETE CASCADE,
  user_id integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  channel text NOT NULL CHECK (channel IN ('webhook', 'slack', 'email')),
  target text NOT NULL,
  secret_ref text,
  mode text NOT NULL DEFAULT 'immediate' CHECK (mode IN ('immediate', 'daily', 'weekly')),
  digest_hour smallint NOT NULL DEFAULT 8 CHECK (digest_hour BETWEEN 0 AND 23),
  digest_weekday smallint NOT NULL DEFAULT 1 CHECK (digest_weekday BETWEEN 1 AND 7),
  enabled boolean NOT NULL DEFAULT true,
  last_digest_at timestamptz,
  last_sent_at timestamptz,
  last_error text,
  last_error_at timestamptz,
  failed_deliveries integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_subscriptions_filter ON alert_subscriptions (filter_id);
CREATE INDEX alert_subscriptions_user ON alert_subscriptions (user_id);

CREATE TABLE alert_deliveries (
  id serial PRIMARY KEY,
  subscription_id integer NOT NULL REFERENCES alert_subscriptions(id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('immediate', 'digest', 'test')),
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at timestamptz
);
CREATE INDEX alert_deliveries_due ON alert_deliveries (status, next_attempt_at);

CREATE TABLE alert_sent_records (
  subscription_id integer NOT NULL REFERENCES alert_subscriptions(id) ON DELETE CASCADE,
  record_key text NOT NULL,
  record jsonb NOT NULL,
  delivery_id integer REFERENCES alert_deliveries(id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (subscription_id, record_key)
);
CREATE INDEX alert_sent_records_digest ON alert_sent_records (subscription_id) WHERE delivery_id IS NULL;
`;
