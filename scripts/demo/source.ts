/**
 * The demo's source database: PGlite in DATA_DIR/demo-source, served on 127.0.0.1 through pglite-socket,
 * seeded once and extended to yesterday on later starts. The injected anomalies sit a few days before
 * the anchor; once the anchor is more than REANCHOR_AFTER_DAYS old they would drop out of the filters'
 * relative ranges ("Last 7 Days"), so the data is generated again up to yesterday.
 */
import path from 'node:path';
import { servePglite } from '../local/pglite-server';
import { type DemoRow, demoRows, demoStart } from './data';

export interface DemoSource {
  connString: string;
  port: number;
  anchor: string;
  /** Rows added by this start (all of them on the first start). */
  added: number;
  close(): Promise<void>;
}

const DAY = 86_400_000;
/** Older anchors are regenerated: the recent injections would fall out of "Last 7 Days". */
export const REANCHOR_AFTER_DAYS = 3;
const iso = (t: number) => new Date(t).toISOString().slice(0, 10);

const literal = (r: DemoRow) =>
  `('${r.day}', '${r.country}', '${r.region}', '${r.city}', '${r.channel}', ${r.revenue}, ${r.orders})`;

async function insertRows(db: { exec(sql: string): Promise<unknown> }, rows: DemoRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 2000) {
    const part = rows.slice(i, i + 2000);
    await db.exec(
      `INSERT INTO daily_sales (sale_day, country, region, city, channel, revenue, orders) VALUES ${part.map(literal).join(',')}`,
    );
  }
}

/** Opens (and on first use seeds) the demo source; `today` decides the last day of data (yesterday). */
export async function startDemoSource(dataDir: string, today = new Date()): Promise<DemoSource> {
  const served = await servePglite(path.join(dataDir, 'demo-source'));
  const db = served.db;
  const yesterday = iso(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()) - DAY);
  await db.exec(`CREATE TABLE IF NOT EXISTS daily_sales (
      sale_day date NOT NULL, country text NOT NULL, region text NOT NULL, city text NOT NULL,
      channel text NOT NULL, revenue numeric(12, 2) NOT NULL, orders integer NOT NULL);
    CREATE TABLE IF NOT EXISTS demo_meta (anchor date NOT NULL, last_day date NOT NULL);`);
  const meta = (
    await db.query<{ anchor: string; last_day: string }>(
      `SELECT to_char(anchor, 'YYYY-MM-DD') AS anchor, to_char(last_day, 'YYYY-MM-DD') AS last_day FROM demo_meta`,
    )
  ).rows[0];
  const stale =
    meta !== undefined && Date.parse(meta.anchor) < Date.parse(yesterday) - REANCHOR_AFTER_DAYS * DAY;
  const anchor = meta && !stale ? meta.anchor : yesterday;
  let added = 0;
  if (!meta || stale) {
    const rows = demoRows(anchor, demoStart(anchor), anchor);
    await db.transaction(async (tx) => {
      await tx.exec('DELETE FROM daily_sales; DELETE FROM demo_meta');
      await insertRows(tx, rows);
      await tx.query('INSERT INTO demo_meta (anchor, last_day) VALUES ($1, $1)', [anchor]);
    });
    added = rows.length;
  } else if (meta.last_day < yesterday) {
    const from = iso(Date.parse(`${meta.last_day}T00:00:00Z`) + DAY);
    const rows = demoRows(anchor, from, yesterday);
    await db.transaction(async (tx) => {
      await insertRows(tx, rows);
      await tx.query('UPDATE demo_meta SET last_day = $1', [yesterday]);
    });
    added = rows.length;
  }
  return {
    port: served.port,
    connString: `Host=127.0.0.1;Port=${served.port};Database=postgres;Username=postgres;Password=demo;SSL Mode=disable`,
    anchor,
    added,
    close: () => served.close(),
  };
}
