/**
 * Anomalies say which measure they are on (value | count). Views deployed before have no `measure`
 * column in their all_anomalies: every row there is of the value measure. (The publish of a run adds
 * the column too, lib/process-job/anomaly-publish.ts.) One statement on one line: migrate.ts splits on ";\n".
 */
export default `
DO $$ DECLARE s text; BEGIN FOR s IN SELECT table_schema FROM information_schema.tables WHERE table_name = 'all_anomalies' AND table_schema LIKE 'dv\\_%' LOOP EXECUTE format('ALTER TABLE %I.all_anomalies ADD COLUMN IF NOT EXISTS measure text NOT NULL DEFAULT %L', s, 'value'); END LOOP; END $$;
`;
