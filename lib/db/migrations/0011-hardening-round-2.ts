/**
 * Second hardening round. A view's series ids never restart: clean and undeploy record the highest id the view
 * gave out, and the next build numbers new series above it (feedback and "already alerted" keys name series by
 * id; an id given again would let an old "not an anomaly" hide another series' anomalies). The sign-in
 * throttle prunes quiet keys by their last failure.
 */
export default `
ALTER TABLE data_views ADD COLUMN IF NOT EXISTS series_id_floor integer NOT NULL DEFAULT 0;
CREATE INDEX IF NOT EXISTS sign_in_throttle_last_failure ON sign_in_throttle (last_failure_at);
`;
