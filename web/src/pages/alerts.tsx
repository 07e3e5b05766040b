/** "My alerts": the caller's alert subscriptions; the subscribe panel of a filter; the admin's alert settings (docs/alerts.md). */
import { type FormEvent, Fragment, useState } from 'react';
import { Badge, ConfirmButton, Field, errorsFor, Loading, PageHeader, Problem } from '../components/ui';
import { api } from '../lib/api';
import { when } from '../lib/format';
import { isAdmin, useMe } from '../lib/session';
import { useLoad } from '../lib/use-load';

export interface AlertSubscription {
  id: number;
  filterId: number;
  filterName: string;
  owner: string;
  channel: 'webhook' | 'slack' | 'email';
  target: string;
  mode: 'immediate' | 'daily' | 'weekly';
  digestHour: number;
  digestWeekday: number;
  enabled: boolean;
  lastSentAt: string | null;
  lastError: string | null;
  lastErrorAt: string | null;
  failedDeliveries: number;
  pendingDigest: number;
  secret?: string;
}

interface Delivery {
  id: number;
  kind: string;
  status: 'pending' | 'sent' | 'failed';
  attempts: number;
  records: number;
  createdAt: string;
  sentAt: string | null;
  nextAttemptAt: string | null;
  lastError: string | null;
}

const HOURS = Array.from({ length: 24 }, (_, h) => h);
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const CHANNELS = { webhook: 'Webhook', slack: 'Slack', email: 'E-mail' } as const;

function modeText(s: AlertSubscription): string {
  if (s.mode === 'immediate') return 'after each detection';
  const at = `${String(s.digestHour).padStart(2, '0')}:00`;
  return s.mode === 'daily'
    ? `daily digest at ${at}`
    : `weekly digest, ${WEEKDAYS[s.digestWeekday - 1]} ${at}`;
}

function FreshSecret({ sub }: { sub: AlertSubscription | null }) {
  if (!sub?.secret) return null;
  return (
    <div className="card fresh-key" role="status">
      <p>
        <strong>Copy the signing secret now:</strong> it is not shown again. Each webhook request carries{' '}
        <code>X-Signature: sha256=&lt;HMAC-SHA256 of the body&gt;</code>.
      </p>
      <code className="secret">{sub.secret}</code>
    </div>
  );
}

function Deliveries({ id }: { id: number }) {
  const list = useLoad(() => api<Delivery[]>('GET', `/anomaly-filters/alerts/${id}/deliveries`), [id]);
  if (list.loading && !list.data) return <Loading what="Loading deliveries" />;
  if (!list.data?.length) return <p className="muted">No deliveries yet.</p>;
  return (
    <table className="list compact">
      <thead>
        <tr>
          <th scope="col">Created</th>
          <th scope="col">Kind</th>
          <th scope="col">Records</th>
          <th scope="col">Status</th>
          <th scope="col">Attempts</th>
          <th scope="col">Error</th>
        </tr>
      </thead>
      <tbody>
        {list.data.map((d) => (
          <tr key={d.id}>
            <td>{when(d.createdAt)}</td>
            <td>{d.kind}</td>
            <td>{d.records}</td>
            <td>
              {d.status}
              {d.status === 'pending' && d.nextAttemptAt ? `, next try ${when(d.nextAttemptAt)}` : ''}
            </td>
            <td>{d.attempts}</td>
            <td>{d.lastError ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The subscriptions as a table with enable/disable, test, deliveries and delete. */
function SubscriptionTable({ subs, reload }: { subs: AlertSubscription[]; reload: () => Promise<unknown> }) {
  const [open, setOpen] = useState<number | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const act = async (fn: () => Promise<unknown>) => {
    setError(null);
    setNote(null);
    try {
      await fn();
      await reload();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <>
      <Problem error={error} />
      {note && <p role="status">{note}</p>}
      <table className="list">
        <thead>
          <tr>
            <th scope="col">Filter</th>
            <th scope="col">Channel</th>
            <th scope="col">To</th>
            <th scope="col">When</th>
            <th scope="col">Last sent</th>
            <th scope="col">Status</th>
            <th scope="col">
              <span className="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {subs.map((s) => (
            <Fragment key={s.id}>
              <tr>
                <td>
                  <a href={`/filters/${s.filterId}`}>{s.filterName}</a>
                </td>
                <td>{CHANNELS[s.channel]}</td>
                <td className="mono">{s.target}</td>
                <td>
                  {modeText(s)}
                  {s.pendingDigest > 0 && <span className="muted"> ({s.pendingDigest} waiting)</span>}
                </td>
                <td>{when(s.lastSentAt)}</td>
                <td>
                  {!s.enabled && <Badge tone="gray">off</Badge>}{' '}
                  {s.lastError ? (
                    <Badge tone="red" title={`${s.lastError} (${when(s.lastErrorAt)})`}>
                      last attempt failed
                    </Badge>
                  ) : (
                    s.enabled && <Badge tone="green">ok</Badge>
                  )}
                  {s.failedDeliveries > 0 && <span className="muted"> {s.failedDeliveries} undelivered</span>}
                  {s.lastError && <div className="field-error">{s.lastError}</div>}
                </td>
                <td className="actions">
                  <button
                    type="button"
                    onClick={() =>
                      act(async () => {
                        const r = await api<{ status: string; error?: string }>(
                          'POST',
                          `/anomaly-filters/alerts/${s.id}/test`,
                        );
                        setNote(
                          r.status === 'sent' ? 'Test message sent.' : `Test message failed: ${r.error}`,
                        );
                      })
                    }
                  >
                    Send test
                  </button>{' '}
                  <button
                    type="button"
                    onClick={() =>
                      act(() => api('PUT', `/anomaly-filters/alerts/${s.id}`, { enabled: !s.enabled }))
                    }
                  >
                    {s.enabled ? 'Pause' : 'Resume'}
                  </button>{' '}
                  <button type="button" onClick={() => setOpen(open === s.id ? null : s.id)}>
                    {open === s.id ? 'Hide deliveries' : 'Deliveries'}
                  </button>{' '}
                  <ConfirmButton
                    label="Unsubscribe"
                    question="Stop these alerts?"
                    onConfirm={() => act(() => api('DELETE', `/anomaly-filters/alerts/${s.id}`))}
                  />
                </td>
              </tr>
              {open === s.id && (
                <tr key={`${s.id}-deliveries`}>
                  <td colSpan={7}>
                    <Deliveries id={s.id} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
    </>
  );
}

/** The subscribe form and the caller's subscriptions of one filter (on the filter page). */
export function FilterAlerts({ filterId }: { filterId: number }) {
  const me = useMe();
  const subs = useLoad(
    () => api<AlertSubscription[]>('GET', `/anomaly-filters/${filterId}/alerts`),
    [filterId],
  );
  const [channel, setChannel] = useState<AlertSubscription['channel']>('email');
  const [url, setUrl] = useState('');
  const [email, setEmail] = useState(me.email);
  const [mode, setMode] = useState<AlertSubscription['mode']>('immediate');
  const [hour, setHour] = useState(8);
  const [weekday, setWeekday] = useState(1);
  const [fresh, setFresh] = useState<AlertSubscription | null>(null);
  const [error, setError] = useState<unknown>(null);

  const subscribe = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      const body = {
        channel,
        ...(channel === 'email' ? { email } : { url }),
        mode,
        ...(mode !== 'immediate' ? { digestHour: hour } : {}),
        ...(mode === 'weekly' ? { digestWeekday: weekday } : {}),
      };
      setFresh(await api<AlertSubscription>('POST', `/anomaly-filters/${filterId}/alerts`, body));
      setUrl('');
      await subs.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section className="card" aria-labelledby="filter-alerts-title">
      <h2 id="filter-alerts-title">Alerts</h2>
      <p className="muted">
        New anomalies of this filter are sent to you after each detection run, or once a day or week. You
        receive only records of data views you can read.
      </p>
      <form onSubmit={subscribe}>
        <div className="row">
          <Field label="Channel" errors={errorsFor(error, 'channel')}>
            {(f) => (
              <select
                id={f.id}
                value={channel}
                onChange={(e) => setChannel(e.target.value as typeof channel)}
              >
                <option value="email">E-mail</option>
                <option value="webhook">Webhook (signed JSON)</option>
                <option value="slack">Slack incoming webhook</option>
              </select>
            )}
          </Field>
          {channel === 'email' ? (
            <Field label="Address" errors={errorsFor(error, 'email')}>
              {(f) => (
                <input
                  id={f.id}
                  type="email"
                  required
                  value={email}
                  readOnly={!isAdmin(me)}
                  onChange={(e) => setEmail(e.target.value)}
                />
              )}
            </Field>
          ) : (
            <Field label="URL" errors={errorsFor(error, 'url')}>
              {(f) => (
                <input
                  id={f.id}
                  type="url"
                  required
                  placeholder="https://"
                  value={url}
                  onChange={(e) => setUrl(e.target.value)}
                />
              )}
            </Field>
          )}
          <Field label="When" errors={errorsFor(error, 'mode')}>
            {(f) => (
              <select id={f.id} value={mode} onChange={(e) => setMode(e.target.value as typeof mode)}>
                <option value="immediate">After each detection</option>
                <option value="daily">Daily digest</option>
                <option value="weekly">Weekly digest</option>
              </select>
            )}
          </Field>
          {mode !== 'immediate' && (
            <Field label="Hour" errors={errorsFor(error, 'digestHour')}>
              {(f) => (
                <select id={f.id} value={hour} onChange={(e) => setHour(Number(e.target.value))}>
                  {HOURS.map((h) => (
                    <option key={h} value={h}>
                      {String(h).padStart(2, '0')}:00
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
          {mode === 'weekly' && (
            <Field label="Day" errors={errorsFor(error, 'digestWeekday')}>
              {(f) => (
                <select id={f.id} value={weekday} onChange={(e) => setWeekday(Number(e.target.value))}>
                  {WEEKDAYS.map((d, i) => (
                    <option key={d} value={i + 1}>
                      {d}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
        </div>
        <Problem error={error} shown={['channel', 'email', 'url', 'mode', 'digestHour', 'digestWeekday']} />
        <button type="submit" className="primary">
          Subscribe
        </button>
      </form>
      <FreshSecret sub={fresh} />
      {subs.data && subs.data.length > 0 && <SubscriptionTable subs={subs.data} reload={subs.reload} />}
    </section>
  );
}

interface AlertSettings {
  publicUrl: string;
  allowPrivateNetwork: boolean;
  smtp: {
    host: string;
    port: number;
    secure: boolean;
    startTls: boolean;
    username: string;
    password?: string;
    from: string;
    allowPrivateNetwork: boolean;
    allowUntrustedCertificate: boolean;
  } | null;
  updatedAt: string | null;
}

/** Administrators: the public URL for links and the SMTP server of e-mail alerts. */
function AlertSettingsForm() {
  const loaded = useLoad(() => api<AlertSettings>('GET', '/settings/alerts'), []);
  if (loaded.loading && !loaded.data) return <Loading what="Loading the alert settings" />;
  if (!loaded.data) return <Problem error={loaded.error} />;
  return <AlertSettingsEditor initial={loaded.data} />;
}

function AlertSettingsEditor({ initial }: { initial: AlertSettings }) {
  const [publicUrl, setPublicUrl] = useState(initial.publicUrl);
  const [allowPrivate, setAllowPrivate] = useState(initial.allowPrivateNetwork);
  const [smtpOn, setSmtpOn] = useState(initial.smtp !== null);
  const [smtp, setSmtp] = useState(
    initial.smtp ?? {
      host: '',
      port: 587,
      secure: false,
      startTls: true,
      username: '',
      password: '',
      from: '',
      allowPrivateNetwork: false,
      allowUntrustedCertificate: false,
    },
  );
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const set = (patch: Partial<typeof smtp>) => setSmtp({ ...smtp, ...patch });
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setSaved(null);
    try {
      const { password, ...rest } = smtp;
      const r = await api<AlertSettings>('PUT', '/settings/alerts', {
        publicUrl,
        allowPrivateNetwork: allowPrivate,
        smtp: smtpOn ? { ...rest, ...(password ? { password } : {}) } : null,
      });
      setSaved(`Saved ${when(r.updatedAt)}.`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form className="card" onSubmit={save} aria-labelledby="alert-settings-title">
      <h2 id="alert-settings-title">Alert settings (administrators)</h2>
      <div className="row">
        <Field
          label="Public URL of the web UI"
          errors={errorsFor(error, 'publicUrl')}
          hint="Alerts link to it."
        >
          {(f) => <input id={f.id} value={publicUrl} onChange={(e) => setPublicUrl(e.target.value)} />}
        </Field>
      </div>
      <label>
        <input type="checkbox" checked={allowPrivate} onChange={(e) => setAllowPrivate(e.target.checked)} />{' '}
        Webhook targets may be in private networks
      </label>
      <fieldset>
        <legend>
          <label>
            <input type="checkbox" checked={smtpOn} onChange={(e) => setSmtpOn(e.target.checked)} /> E-mail
            over SMTP
          </label>
        </legend>
        {smtpOn && (
          <div className="row">
            <Field label="Host" errors={errorsFor(error, 'smtp.host')}>
              {(f) => (
                <input id={f.id} required value={smtp.host} onChange={(e) => set({ host: e.target.value })} />
              )}
            </Field>
            <Field label="Port" errors={errorsFor(error, 'smtp.port')}>
              {(f) => (
                <input
                  id={f.id}
                  type="number"
                  value={smtp.port}
                  onChange={(e) => set({ port: Number(e.target.value) })}
                />
              )}
            </Field>
            <Field label="From" errors={errorsFor(error, 'smtp.from')}>
              {(f) => (
                <input id={f.id} required value={smtp.from} onChange={(e) => set({ from: e.target.value })} />
              )}
            </Field>
            <Field label="User name" errors={errorsFor(error, 'smtp.username')}>
              {(f) => (
                <input id={f.id} value={smtp.username} onChange={(e) => set({ username: e.target.value })} />
              )}
            </Field>
            <Field
              label="Password"
              errors={errorsFor(error, 'smtp.password')}
              hint="***** keeps the stored one"
            >
              {(f) => (
                <input
                  id={f.id}
                  type="password"
                  value={smtp.password ?? ''}
                  onChange={(e) => set({ password: e.target.value })}
                />
              )}
            </Field>
            <label>
              <input
                type="checkbox"
                checked={smtp.secure}
                onChange={(e) => set({ secure: e.target.checked })}
              />{' '}
              TLS from the start (port 465)
            </label>
            <label>
              <input
                type="checkbox"
                checked={smtp.startTls}
                onChange={(e) => set({ startTls: e.target.checked })}
              />{' '}
              STARTTLS
            </label>
            <label>
              <input
                type="checkbox"
                checked={smtp.allowPrivateNetwork}
                onChange={(e) => set({ allowPrivateNetwork: e.target.checked })}
              />{' '}
              Relay in a private network
            </label>
          </div>
        )}
      </fieldset>
      <Problem
        error={error}
        shown={['publicUrl', 'smtp.host', 'smtp.port', 'smtp.from', 'smtp.username', 'smtp.password']}
      />
      {saved && <p role="status">{saved}</p>}
      <button type="submit" className="primary">
        Save alert settings
      </button>
    </form>
  );
}

export function MyAlertsPage() {
  const me = useMe();
  const subs = useLoad(() => api<AlertSubscription[]>('GET', '/anomaly-filters/alerts'), []);
  return (
    <div>
      <PageHeader title="My alerts" />
      <p className="muted">
        Subscribe on a filter’s page. Alerts hold only records of data views you can read; records marked
        expected or not an anomaly are never sent.
      </p>
      {subs.loading && !subs.data && <Loading />}
      <Problem error={subs.error} />
      {subs.data?.length === 0 && <p className="muted">You have no alert subscriptions yet.</p>}
      {subs.data && subs.data.length > 0 && <SubscriptionTable subs={subs.data} reload={subs.reload} />}
      {isAdmin(me) && <AlertSettingsForm />}
    </div>
  );
}
