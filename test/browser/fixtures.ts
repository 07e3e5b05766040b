/** Demo data for the browser journeys: a source database with daily sales, and its data view definition. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ServedPglite, servePglite } from '../../scripts/local/pglite-server';

export const CONNECTOR = 'demo_sales';

/** 120 days of sales per country, city and channel, with a drop in Brno's web sales over the last days. */
export async function startSalesSource(): Promise<ServedPglite> {
  const source = await servePglite('memory://');
  await source.db.exec(`
    CREATE TABLE sales (sale_date date, country text, city text, channel text, amount numeric, orders integer);
    INSERT INTO sales
    SELECT d::date, c.country, c.city, ch.channel,
           round((100 + 20 * sin(extract(doy FROM d) / 7.0) + (c.weight * 10))::numeric
             * CASE WHEN c.city = 'Brno' AND ch.channel = 'web' AND d >= CURRENT_DATE - 6 THEN 0.3 ELSE 1 END, 2),
           10 + c.weight
    FROM generate_series(CURRENT_DATE - 119, CURRENT_DATE - 1, interval '1 day') d,
         (VALUES ('CZ', 'Praha', 3), ('CZ', 'Brno', 2), ('DE', 'Berlin', 4), ('DE', 'Munich', 1)) c(country, city, weight),
         (VALUES ('web'), ('store')) ch(channel);`);
  return source;
}

/** An ADO.NET connection string to the demo source (PGlite accepts any password). */
export function connString(source: ServedPglite): string {
  return `Host=127.0.0.1;Port=${source.port};Database=postgres;Username=postgres;Password=demo;SSL Mode=disable`;
}

/** The data view definition the journeys type into the YAML editor. */
export const SALES_YAML = `schemaVersion: 3
metadata:
  name: daily_sales
  domain: retail
  description: Daily sales per country, city and channel.
  tags: retail, demo
source:
  connector: ${CONNECTOR}
  dateColumn: day
  valueColumn: amount
  countColumn: orders
  loadMode: full
  trigger: cron
  cron: "0 30 5 * * *"
  loadQuery: |
    SELECT CAST(to_char(sale_date, 'YYYYMMDD') AS integer) AS day, country, city, channel,
           SUM(amount) AS amount, SUM(orders) AS orders
    FROM sales GROUP BY sale_date, country, city, channel
categories:
  - name: country
    label: Country
  - name: city
    label: City
    parent: country
  - name: channel
    label: Channel
analysis:
  fillGapMethod: zero
  ignoreLastNDays: 0
  scanInLastNDays: 30
  detectors:
    - type: dod
      params:
        percentualChange: 40
        mode: both
`;

export const SUMMARY_TEXT =
  'Web sales in Brno fell by about 70 % over the last week; other cities are steady.';

/** A chat-style language model on 127.0.0.1 that answers every prompt with SUMMARY_TEXT (OpenAI shape). */
export async function startFakeModel(): Promise<{ url: string; prompts: string[]; close(): Promise<void> }> {
  const prompts: string[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      prompts.push(body);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: SUMMARY_TEXT } }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    prompts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
