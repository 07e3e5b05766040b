/**
 * `data` of every deployed view from one row per series and day (gap-filled days included) to one row
 * per series and chunk of 112 days with data (lib/dataset/series-chunks.ts: a presence bitmap, float8send
 * bytes per day, the chunk's stats), and the `days` table (series with data per day). Gap-filled rows go:
 * gaps are filled as the series are read. A view whose `data` has a `chunk` column is already converted.
 * One statement on one line: migrate.ts splits on ";\n".
 */
const convert = [
  // The chunk and the day in it of every row with data.
  `WITH r AS (SELECT series_id, e, floor(e / 112.0)::int AS chunk, value, cnt FROM (SELECT series_id, to_date(day::text, 'YYYYMMDD') - date '1970-01-01' AS e, value, cnt FROM %1$I.data_by_day WHERE NOT filled) x),`,
  `k AS (SELECT series_id, chunk, array_agg(e - chunk * 112 ORDER BY e) AS ts, array_agg(value ORDER BY e) AS vs, array_agg(cnt ORDER BY e) AS cs, count(*)::int AS n, min(e - chunk * 112)::int AS lo, max(e - chunk * 112)::int AS hi, sum(value) AS sv, sum(cnt) AS sc FROM r GROUP BY series_id, chunk)`,
  'INSERT INTO %1$I.data (series_id, chunk, present, value, cnt, days, first_offset, last_offset, sum_value, sum_cnt)',
  'SELECT k.series_id, k.chunk,',
  // Bit t of byte t >> 3, lowest bit first.
  `(SELECT decode(string_agg(lpad(to_hex(coalesce(b.v, 0)), 2, '0'), '' ORDER BY g.i), 'hex') FROM generate_series(0, 13) g(i) LEFT JOIN (SELECT x.t >> 3 AS i, sum(1 << (x.t & 7))::int AS v FROM unnest(k.ts) x(t) GROUP BY 1) b ON b.i = g.i),`,
  `(SELECT string_agg(coalesce(float8send(p.v), decode('0000000000000000', 'hex')), ''::bytea ORDER BY g.t) FROM generate_series(0, k.hi) g(t) LEFT JOIN unnest(k.ts, k.vs) p(t, v) ON p.t = g.t),`,
  `(SELECT string_agg(coalesce(float8send(p.v), decode('0000000000000000', 'hex')), ''::bytea ORDER BY g.t) FROM generate_series(0, k.hi) g(t) LEFT JOIN unnest(k.ts, k.cs) p(t, v) ON p.t = g.t),`,
  'k.n, k.lo, k.hi, k.sv, k.sc FROM k',
].join(' ');

export default `
DO $$ DECLARE s text; BEGIN FOR s IN SELECT c.table_schema FROM information_schema.columns c WHERE c.table_name = 'data' AND c.column_name = 'day' AND c.table_schema LIKE 'dv\\_%' LOOP EXECUTE format('ALTER TABLE %I.data RENAME TO data_by_day', s); EXECUTE format('ALTER INDEX IF EXISTS %I.data_pkey RENAME TO data_by_day_pkey', s); EXECUTE format('CREATE TABLE %I.data (series_id integer NOT NULL, chunk integer NOT NULL, present bytea NOT NULL, value bytea NOT NULL, cnt bytea, days smallint NOT NULL, first_offset smallint NOT NULL, last_offset smallint NOT NULL, sum_value double precision NOT NULL, sum_cnt double precision NOT NULL, CONSTRAINT data_pkey PRIMARY KEY (series_id, chunk))', s); EXECUTE format($f$${convert}$f$, s); EXECUTE format('CREATE TABLE IF NOT EXISTS %I.days (day integer NOT NULL, series integer NOT NULL, CONSTRAINT days_pkey PRIMARY KEY (day))', s); EXECUTE format('INSERT INTO %1$I.days (day, series) SELECT day, count(*)::int FROM %1$I.data_by_day WHERE NOT filled GROUP BY day', s); EXECUTE format('DROP TABLE %I.data_by_day CASCADE', s); EXECUTE format('ANALYZE %I.data', s); END LOOP; END $$;
`;
