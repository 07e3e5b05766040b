/** The three message formats of an alert: webhook JSON, a Slack-compatible message, and an e-mail (text and HTML). */
import type { AnomalyRecord } from '../filters/types';

export interface AlertPayload {
  kind: 'immediate' | 'digest' | 'test';
  subscriptionId: number;
  filter: { id: number; name: string };
  /** Records new to this subscription, in the filter's rank order. */
  records: AnomalyRecord[];
  links: { filter: string; api: string };
  generatedAt: string;
}

const num = (v: number | null | undefined, digits = 2) =>
  v === null || v === undefined || !Number.isFinite(v)
    ? 'n/a'
    : Number(v.toFixed(digits)).toLocaleString('en-US');

function cats(c: Record<string, string | null>): string {
  const parts = Object.entries(c)
    .filter(([, v]) => v !== null && v !== undefined)
    .map(([k, v]) => `${k}=${v}`);
  return parts.length ? parts.join(', ') : 'total';
}

export function recordLine(a: AnomalyRecord): string {
  const pct = a.changePct === null ? '' : ` (${a.changePct > 0 ? '+' : ''}${num(a.changePct, 1)} %)`;
  return `${a.type} ${a.result === 'Positive' ? '▲' : '▼'} ${a.dataView} | ${cats(a.categories)} | ${a.startDate}${
    a.endDate !== a.startDate ? `..${a.endDate}` : ''
  } | actual ${num(a.actualValue)} vs expected ${num(a.predictedValue)}${pct} | SIN ${num(a.sin, 3)}`;
}

function title(p: AlertPayload): string {
  const n = p.records.length;
  if (p.kind === 'test') return `Test alert for filter "${p.filter.name}"`;
  const what = `${n} new anomal${n === 1 ? 'y' : 'ies'}`;
  return p.kind === 'digest' ? `Digest: ${what} in "${p.filter.name}"` : `${what} in "${p.filter.name}"`;
}

/** The webhook body: everything, as JSON. */
export function webhookBody(p: AlertPayload): string {
  return JSON.stringify({
    event: p.kind === 'test' ? 'alert.test' : p.kind === 'digest' ? 'anomalies.digest' : 'anomalies.new',
    subscriptionId: p.subscriptionId,
    filter: p.filter,
    generatedAt: p.generatedAt,
    count: p.records.length,
    records: p.records,
    links: p.links,
  });
}

/** The top records shown in Slack and e-mail messages; the rest are counted. */
export const TOP_RECORDS = 10;

/** Slack's mrkdwn control characters as entities (&, <, >): text shows as written, never as a mention or link. */
export const slackEscape = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A Slack-compatible incoming-webhook message (text fallback plus blocks). */
export function slackBody(p: AlertPayload): string {
  const top = p.records.slice(0, TOP_RECORDS);
  // Filter names and category values are anyone's text: escaped, a `<!channel>` or `<https://…|label>` in them
  // stays text instead of pinging everyone or hiding a link.
  const lines = top.map((a) => `• ${slackEscape(recordLine(a))}`);
  if (p.records.length > top.length) lines.push(`… and ${p.records.length - top.length} more`);
  if (p.kind === 'test') lines.push('This is a test message: the subscription works.');
  const text = `*${slackEscape(title(p))}*\n${lines.join('\n')}\n<${p.links.filter}|Open the filter>`;
  return JSON.stringify({
    text,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: title(p).slice(0, 150) } },
      { type: 'section', text: { type: 'mrkdwn', text: (lines.join('\n') || ' ').slice(0, 3000) } },
      { type: 'section', text: { type: 'mrkdwn', text: `<${p.links.filter}|Open the filter>` } },
    ],
  });
}

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The e-mail: subject, plain text and HTML. */
export function emailMessage(p: AlertPayload): { subject: string; text: string; html: string } {
  const top = p.records.slice(0, 50);
  const more = p.records.length - top.length;
  const text = [
    title(p),
    '',
    ...top.map((a) => `- ${recordLine(a)}`),
    more > 0 ? `... and ${more} more` : '',
    p.kind === 'test' ? 'This is a test message: the subscription works.' : '',
    '',
    `Open the filter: ${p.links.filter}`,
  ]
    .filter((l, i, all) => l !== '' || (i > 0 && all[i - 1] !== ''))
    .join('\n');
  const rows = top
    .map(
      (a) =>
        `<tr><td>${esc(a.type)}</td><td>${a.result === 'Positive' ? '▲' : '▼'}</td><td>${esc(a.dataView)}</td>` +
        `<td>${esc(cats(a.categories))}</td><td>${esc(a.startDate)}${a.endDate !== a.startDate ? ` – ${esc(a.endDate)}` : ''}</td>` +
        `<td style="text-align:right">${esc(num(a.actualValue))}</td><td style="text-align:right">${esc(num(a.predictedValue))}</td>` +
        `<td style="text-align:right">${esc(num(a.changePct, 1))} %</td><td style="text-align:right">${esc(num(a.sin, 3))}</td></tr>`,
    )
    .join('\n');
  const html = `<!doctype html><html><body style="font-family:sans-serif">
<h2>${esc(title(p))}</h2>
${
  top.length
    ? `<table cellpadding="4" style="border-collapse:collapse"><thead><tr><th>Type</th><th></th><th>Data view</th><th>Categories</th><th>Dates</th><th>Actual</th><th>Expected</th><th>Change</th><th>SIN</th></tr></thead><tbody>
${rows}
</tbody></table>`
    : ''
}
${more > 0 ? `<p>… and ${more} more</p>` : ''}
${p.kind === 'test' ? '<p>This is a test message: the subscription works.</p>' : ''}
<p><a href="${esc(p.links.filter)}">Open the filter</a></p>
</body></html>`;
  return { subject: title(p), text, html };
}
