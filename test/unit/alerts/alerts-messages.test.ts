/** Alert messages (webhook, Slack, e-mail), the digest schedule and the backoff, without I/O. */
import { describe, expect, it } from 'vitest';
import { signature } from '../../../lib/alerts/channels';
import { backoffSeconds } from '../../../lib/alerts/deliveries';
import { digestDue, localHour } from '../../../lib/alerts/digests';
import {
  type AlertPayload,
  alertKey,
  emailMessage,
  slackBody,
  webhookBody,
} from '../../../lib/alerts/messages';
import { renderMessage } from '../../../lib/alerts/smtp';
import type { AnomalyIncident, AnomalyRecord } from '../../../lib/filters/types';
import alertSchema from '../../../schemas/alert.schema.json' with { type: 'json' };
import filterAnswerSchema from '../../../schemas/filter-answer.schema.json' with { type: 'json' };
import { schemaValidator } from '../filters/fixtures';

const record = (i: number, extra: Partial<AnomalyRecord> = {}): AnomalyRecord => ({
  id: i,
  dataViewId: 1,
  dataView: 'retail / sales',
  seriesId: i,
  measure: 'value',
  type: 'DOD',
  startDate: '2024-01-20',
  endDate: '2024-01-20',
  duration: 1,
  actualValue: 300,
  predictedValue: 100,
  change: 200,
  changePct: 200,
  changeCum: 200,
  sharePct: 10,
  recurrence: 0,
  result: 'Positive',
  categories: { country: `C${i}` },
  sin: 3,
  sim: 0.1,
  comments: [],
  ...extra,
});

const payload = (n: number, kind: AlertPayload['kind'] = 'immediate'): AlertPayload => ({
  kind,
  subscriptionId: 5,
  filter: { id: 3, name: 'Sales <drops>' },
  records: Array.from({ length: n }, (_, i) => record(i + 1)),
  links: {
    filter: 'https://m.example.com/filters/3',
    api: 'https://m.example.com/api/v1/anomalies/by-filter/3',
  },
  generatedAt: '2024-02-01T08:30:00.000Z',
});

describe('alert messages', () => {
  it('webhook: the whole records and links, signed over the exact body', () => {
    const body = webhookBody(payload(2));
    const parsed = JSON.parse(body);
    expect(parsed).toMatchObject({ event: 'incident.new', subscriptionId: 5, count: 2, filter: { id: 3 } });
    expect(parsed.records[0].categories).toEqual({ country: 'C1' });
    expect(signature('s3cret', body)).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(signature('s3cret', body)).not.toBe(signature('s3cret', `${body} `));
    expect(JSON.parse(webhookBody(payload(1, 'digest'))).event).toBe('incidents.digest');
  });

  it('Slack: readable lines of the top 10 records and a count of the rest', () => {
    const msg = JSON.parse(slackBody(payload(12)));
    // mrkdwn: the filter's name is escaped (a `<drops>` there is text, not a link or mention).
    expect(msg.text).toContain('*12 new incidents in "Sales &lt;drops&gt;"*');
    expect(msg.text).toContain(
      '• DOD ▲ retail / sales | country=C1 | 2024-01-20 | actual 300 vs expected 100 (+200 %) | SIN 3',
    );
    expect(msg.text).toContain('… and 2 more');
    expect(msg.text.match(/^• /gm)).toHaveLength(10);
    const hostile = JSON.parse(
      slackBody({
        ...payload(1),
        records: [record(1, { categories: { country: '<!channel> <https://evil.example|bank> & co' } })],
      }),
    );
    expect(hostile.blocks[1].text.text).toContain(
      'country=&lt;!channel&gt; &lt;https://evil.example|bank&gt; &amp; co',
    );
    expect(hostile.text).not.toContain('<!channel>');
    expect(msg.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: '12 new incidents in "Sales <drops>"' },
    });
  });

  it('e-mail: text and escaped HTML', () => {
    const m = emailMessage(payload(1, 'digest'));
    expect(m.subject).toBe('Digest: 1 new incident in "Sales <drops>"');
    expect(m.text).toContain('- DOD ▲ retail / sales | country=C1');
    expect(m.text).toContain('Open the filter: https://m.example.com/filters/3');
    expect(m.html).toContain('Sales &lt;drops&gt;');
    expect(m.html).not.toContain('<drops>');
    const raw = renderMessage(
      'alerts@example.com',
      { to: ['a@example.com'], ...m },
      new Date('2024-02-01T09:00:00Z'),
    );
    expect(raw).toContain('Subject: Digest: 1 new incident in "Sales <drops>"');
    const czech = renderMessage('alerts@example.com', { to: ['a@example.com'], ...m, subject: 'Tržby' });
    expect(czech).toContain(`Subject: =?UTF-8?B?${Buffer.from('Tržby').toString('base64')}?=`);
    expect(raw).toContain('Content-Type: multipart/alternative');
    expect(raw.split('\r\n').every((l) => l.length <= 998)).toBe(true);
  });
});

describe('digest schedule and backoff', () => {
  const sub = {
    mode: 'daily' as const,
    digestHour: 9,
    digestWeekday: 1,
    lastDigestAt: null as string | null,
  };
  it('is due in its hour of the service time zone, once', () => {
    expect(digestDue(sub, new Date('2024-02-01T09:05:00Z'), 'UTC')).toBe(true);
    expect(digestDue(sub, new Date('2024-02-01T08:59:00Z'), 'UTC')).toBe(false);
    expect(
      digestDue(
        { ...sub, lastDigestAt: '2024-02-01T09:00:00.000Z' },
        new Date('2024-02-01T09:30:00Z'),
        'UTC',
      ),
    ).toBe(false);
    expect(
      digestDue(
        { ...sub, lastDigestAt: '2024-01-31T09:00:00.000Z' },
        new Date('2024-02-01T09:30:00Z'),
        'UTC',
      ),
    ).toBe(true);
    // 09:05 in Prague is 08:05 UTC in winter.
    expect(digestDue(sub, new Date('2024-02-01T08:05:00Z'), 'Europe/Prague')).toBe(true);
    expect(localHour(new Date('2024-02-05T10:00:00Z'), 'UTC')).toEqual({ hour: 10, weekday: 1 });
  });
  it('weekly digests wait for their weekday; immediate subscriptions have none', () => {
    const weekly = { ...sub, mode: 'weekly' as const, digestWeekday: 1 };
    expect(digestDue(weekly, new Date('2024-02-05T09:10:00Z'), 'UTC')).toBe(true); // a Monday
    expect(digestDue(weekly, new Date('2024-02-06T09:10:00Z'), 'UTC')).toBe(false);
    expect(digestDue({ ...sub, mode: 'immediate' }, new Date('2024-02-01T09:05:00Z'), 'UTC')).toBe(false);
  });
  it('backs off 30 s, 2 min, 8 min, 32 min', () => {
    expect([1, 2, 3, 4].map(backoffSeconds)).toEqual([30, 120, 480, 1920]);
  });
});

/** An incident row (filter setting `incidents`): a leaf that moved the total. */
const incident = (id: number): AnomalyIncident => ({
  id,
  size: 6,
  startDate: '2024-01-20',
  endDate: '2024-01-21',
  firstSeenAt: '2024-02-01T08:00:00.000Z',
  measures: ['value', 'count'],
  types: ['DOD', 'Spike'],
  broad: { categories: { country: null }, actual: 1300, expected: 1100, change: 200, changePct: 18.2 },
  rootCauses: [
    {
      categories: { country: 'CZ' },
      actual: 300,
      expected: 100,
      change: 200,
      changePct: 200,
      explainsPct: 100,
      broad: false,
    },
  ],
});
const incidentPayload = (kind: AlertPayload['kind'] = 'immediate'): AlertPayload => ({
  ...payload(0, kind),
  records: [record(1, { incidentId: 42, incident: incident(42) })],
});

describe('alert messages of incidents', () => {
  it('webhook: one incident with its root cause, broad series and citation, as the alert-webhook schema says', () => {
    const body = JSON.parse(webhookBody(incidentPayload()));
    expect(body).toMatchObject({ event: 'incident.new', count: 1 });
    expect(body.incidents).toHaveLength(1);
    expect(body.incidents[0]).toMatchObject({
      id: 42,
      dataViewId: 1,
      citation: '[incident 1:42]',
      rootCauses: [{ categories: { country: 'CZ' }, explainsPct: 100 }],
      broad: { categories: { country: null } },
      row: { id: 1, seriesId: 1 },
    });
    expect(body.incidents[0].row.incident).toBeUndefined();
    const ajv = schemaValidator(filterAnswerSchema, alertSchema);
    expect(ajv.validate('alert-webhook', body), ajv.errorsText()).toBe(true);
    // A receiver's contract: an event name not in the schema fails it.
    expect(ajv.validate('alert-webhook', { ...body, event: 'anomalies.new' })).toBe(false);
    const test = JSON.parse(webhookBody({ ...payload(0, 'test') }));
    expect(ajv.validate('alert-webhook', test), ajv.errorsText()).toBe(true);
  });

  it('Slack and e-mail name the incident by its root cause and broad series', () => {
    const slack = JSON.parse(slackBody(incidentPayload()));
    expect(slack.blocks[0].text.text).toBe(
      'New incident in "Sales <drops>": ▲ country=CZ (+200 %, explains 100 %)',
    );
    expect(slack.text).toContain(
      '• [incident 1:42] ▲ retail / sales | root cause country=CZ: actual 300 vs expected 100 (+200 %, explains 100 %) | of broad series total: actual 1,300 vs expected 1,100 (+18.2 %) | 2024-01-20..2024-01-21 | value+count DOD+Spike | 6 records | SIN 3',
    );
    const m = emailMessage(incidentPayload('digest'));
    expect(m.subject).toBe('Digest: 1 new incident in "Sales <drops>"');
    expect(m.text).toContain('- [incident 1:42] ▲ retail / sales | root cause country=CZ');
    expect(m.html).toContain('<td>[incident 1:42]</td>');
    expect(m.html).toContain('country=CZ (+200 %, explains 100 %) — of broad series total (+18.2 %)');
    // The row's figures are the root cause's own (300 against 100), not the total's (1,300 against 1,100).
    expect(m.html).toContain('<td style="text-align:right">300</td><td style="text-align:right">100</td>');
    expect(m.html).not.toContain('>1,300<');
  });

  it('says why a root cause explains all of a broad change it exceeds', () => {
    const i = incident(43);
    i.rootCauses[0] = {
      ...i.rootCauses[0],
      explainsPct: 100,
      explainsNote: "a rise against a fall of the rest: 2,035 % of the broad series' change",
    };
    const slack = JSON.parse(
      slackBody({ ...payload(0, 'immediate'), records: [record(1, { incidentId: 43, incident: i })] }),
    );
    expect(slack.text).toContain('explains 100 % (a rise against a fall of the rest: 2,035 %');
    expect(slack.text).not.toMatch(/explains 2,035/);
  });

  it('a subscription remembers an incident by its view and id, a plain record by its feedback key', () => {
    expect(alertKey(incidentPayload().records[0])).toBe('incident:1:42');
    expect(alertKey(record(7))).not.toContain('incident');
  });
});
