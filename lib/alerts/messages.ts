/**
 * The three message formats of an alert: webhook JSON, a Slack-compatible message, and an e-mail (text and
 * HTML). An alert speaks of incidents (docs/alerts.md): each record of a payload is an incident row of the
 * filter (setting `incidents`), named by its root cause with the root cause's own figures (the row's), and
 * its broad series' change as context.
 */
import { recordKey } from '../feedback/records';
import type { AnomalyIncident, AnomalyRecord } from '../filters/types';

export interface AlertPayload {
  kind: 'immediate' | 'digest' | 'test';
  subscriptionId: number;
  filter: { id: number; name: string };
  /**
   * Incidents new to this subscription as the filter's incident rows (each with `incident`), in rank order:
   * one in an immediate message. A digest queued before alerts spoke of incidents may hold plain records.
   */
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

const signed = (v: number | null | undefined, digits = 1) =>
  v === null || v === undefined || !Number.isFinite(v) ? 'n/a' : `${v > 0 ? '+' : ''}${num(v, digits)}`;

/** How alerts and summaries cite an incident (docs/summaries.md): `[incident <view>:<id>]`. */
export const incidentCitation = (dataViewId: number, incidentId: number) =>
  `[incident ${dataViewId}:${incidentId}]`;

/** What a root cause explains of the broad series: `explains 95 %`, or all of it with the reason. */
const explainsText = (c: AnomalyIncident['rootCauses'][number]) =>
  c.explainsNote
    ? `explains ${num(c.explainsPct, 0)} % (${c.explainsNote})`
    : `explains ${num(c.explainsPct, 0)} %`;

/** The incident's root causes, the strongest first: `country=CZ (+1900 %, explains 95 %)`. */
export function rootCauseText(i: AnomalyIncident): string {
  if (i.rootCauses.length === 0) return cats(i.broad.categories);
  return i.rootCauses
    .slice(0, 3)
    .map((c) => `${cats(c.categories)} (${signed(c.changePct)} %, ${explainsText(c)})`)
    .join('; ');
}

/** Each root cause with its own figures over the window: `country=CZ: actual 20 vs expected 300 (-93.3 %, explains 93 %)`. */
function rootCauseFigures(i: AnomalyIncident): string {
  if (i.rootCauses.length === 0) return cats(i.broad.categories);
  return i.rootCauses
    .slice(0, 3)
    .map(
      (c) =>
        `${cats(c.categories)}: actual ${num(c.actual)} vs expected ${num(c.expected)} (${signed(c.changePct)} %, ${explainsText(c)})`,
    )
    .join('; ');
}

/**
 * One line of an incident: citation, direction, view, each root cause with its own figures, the broad series'
 * as context, dates, measures, size.
 */
export function incidentLine(a: AnomalyRecord & { incident: AnomalyIncident }): string {
  const i = a.incident;
  const days = `${i.startDate}${i.endDate !== i.startDate ? `..${i.endDate}` : ''}`;
  return `${incidentCitation(a.dataViewId, i.id)} ${a.result === 'Positive' ? '▲' : '▼'} ${a.dataView} | root cause ${rootCauseFigures(
    i,
  )} | of broad series ${cats(i.broad.categories)}: actual ${num(i.broad.actual)} vs expected ${num(
    i.broad.expected,
  )} (${signed(i.broad.changePct)} %) | ${days} | ${i.measures.join('+')} ${i.types.join('+')} | ${i.size} record${
    i.size === 1 ? '' : 's'
  } | SIN ${num(a.sin, 3)}`;
}

const isIncident = (a: AnomalyRecord): a is AnomalyRecord & { incident: AnomalyIncident } =>
  a.incident !== undefined && a.incident !== null;

/**
 * What a subscription remembers as sent (alert_sent_records.record_key): an incident by its view and id, so
 * that it is sent once whatever its members do; a plain record (queued before incidents) by its feedback key.
 */
export const alertKey = (a: AnomalyRecord) =>
  isIncident(a) ? `incident:${a.dataViewId}:${a.incident.id}` : recordKey(a);

/** The line of a payload's record: an incident's line, or a plain record's for one of no incident. */
export const alertLine = (a: AnomalyRecord) => (isIncident(a) ? incidentLine(a) : recordLine(a));

export function recordLine(a: AnomalyRecord): string {
  const pct = a.changePct === null ? '' : ` (${a.changePct > 0 ? '+' : ''}${num(a.changePct, 1)} %)`;
  return `${a.type} ${a.result === 'Positive' ? '▲' : '▼'} ${a.dataView} | ${cats(a.categories)} | ${a.startDate}${
    a.endDate !== a.startDate ? `..${a.endDate}` : ''
  } | actual ${num(a.actualValue)} vs expected ${num(a.predictedValue)}${pct} | SIN ${num(a.sin, 3)}`;
}

function title(p: AlertPayload): string {
  const n = p.records.length;
  if (p.kind === 'test') return `Test alert for filter "${p.filter.name}"`;
  const first = p.records[0];
  if (p.kind === 'immediate' && n === 1 && first && isIncident(first))
    return `New incident in "${p.filter.name}": ${first.result === 'Positive' ? '▲' : '▼'} ${rootCauseText(first.incident)}`;
  const what = `${n} new incident${n === 1 ? '' : 's'}`;
  return p.kind === 'digest' ? `Digest: ${what} in "${p.filter.name}"` : `${what} in "${p.filter.name}"`;
}

/** A payload's incident as the webhook carries it: the incident, its citation and its row as the filter shows it. */
function webhookIncident(a: AnomalyRecord) {
  const { incident, members: _members, ...row } = a;
  if (!incident) return undefined;
  return {
    ...incident,
    dataViewId: a.dataViewId,
    dataView: a.dataView,
    result: a.result,
    citation: incidentCitation(a.dataViewId, incident.id),
    row,
  };
}

/** The webhook body: everything, as JSON. */
export function webhookBody(p: AlertPayload): string {
  return JSON.stringify({
    event: p.kind === 'test' ? 'alert.test' : p.kind === 'digest' ? 'incidents.digest' : 'incident.new',
    subscriptionId: p.subscriptionId,
    filter: p.filter,
    generatedAt: p.generatedAt,
    count: p.records.length,
    incidents: p.records.map(webhookIncident).filter((i) => i !== undefined),
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
  const lines = top.map((a) => `• ${slackEscape(alertLine(a))}`);
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
    ...top.map((a) => `- ${alertLine(a)}`),
    more > 0 ? `... and ${more} more` : '',
    p.kind === 'test' ? 'This is a test message: the subscription works.' : '',
    '',
    `Open the filter: ${p.links.filter}`,
  ]
    .filter((l, i, all) => l !== '' || (i > 0 && all[i - 1] !== ''))
    .join('\n');
  const rows = top
    .map((a) => {
      const i = isIncident(a) ? a.incident : undefined;
      // An incident's figures are its first root cause's over the window (the row's own), the broad series named as context.
      const c = i?.rootCauses[0];
      const cause = i
        ? `${rootCauseText(i)} — of broad series ${cats(i.broad.categories)} (${signed(i.broad.changePct)} %)`
        : cats(a.categories);
      const [from, to] = i ? [i.startDate, i.endDate] : [a.startDate, a.endDate];
      return (
        `<tr><td>${i ? esc(incidentCitation(a.dataViewId, i.id)) : ''}</td><td>${esc(i ? i.types.join('+') : a.type)}</td>` +
        `<td>${a.result === 'Positive' ? '▲' : '▼'}</td><td>${esc(a.dataView)}</td>` +
        `<td>${esc(cause)}</td><td>${esc(from)}${to !== from ? ` – ${esc(to)}` : ''}</td>` +
        `<td style="text-align:right">${esc(num(c ? c.actual : a.actualValue))}</td>` +
        `<td style="text-align:right">${esc(num(c ? c.expected : a.predictedValue))}</td>` +
        `<td style="text-align:right">${esc(num(c ? c.changePct : a.changePct, 1))} %</td><td style="text-align:right">${esc(num(a.sin, 3))}</td></tr>`
      );
    })
    .join('\n');
  const html = `<!doctype html><html><body style="font-family:sans-serif">
<h2>${esc(title(p))}</h2>
${
  top.length
    ? `<table cellpadding="4" style="border-collapse:collapse"><thead><tr><th>Incident</th><th>Type</th><th></th><th>Data view</th><th>Root cause</th><th>Dates</th><th>Actual</th><th>Expected</th><th>Change</th><th>SIN</th></tr></thead><tbody>
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
