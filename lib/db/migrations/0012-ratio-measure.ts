/**
 * The ratio measure (docs/detectors.md, "Units and ratios"): detection records anomalies of `ratio`
 * (value ÷ count per day) beside value and count, and feedback may sit on a ratio record. A filter that
 * selected both measures there were ('value;count', the default until now) selects the three. One
 * statement per line: migrate.ts splits on ";\n".
 */
export default `
ALTER TABLE anomaly_feedback DROP CONSTRAINT IF EXISTS anomaly_feedback_measure_check;
ALTER TABLE anomaly_feedback ADD CONSTRAINT anomaly_feedback_measure_check CHECK (measure IN ('value', 'count', 'ratio'));
UPDATE filters SET settings = jsonb_set(settings, '{measures}', '"value;count;ratio"') WHERE settings->>'measures' IN ('value;count', 'count;value');
`;
