/** The subscribe panel of a filter: the form and the caller's subscriptions of that filter (docs/alerts.md). */
import { type FormEvent, useState } from 'react';
import {
  type AlertSubscription,
  HOURS,
  SubscriptionTable,
  WEEKDAYS,
} from '../components/alerts/subscription-table';
import { Field, errorsFor, Problem } from '../components/ui';
import { api } from '../lib/api';
import { isAdmin, useMe } from '../lib/session';
import { useLoad } from '../lib/use-load';

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

/** The subscribe form and the caller's subscriptions of one filter (on the filter page). */
export function FilterAlerts({ filterId }: { filterId: number }) {
  const me = useMe();
  const subs = useLoad(
    () => api<AlertSubscription[]>('GET', `/anomaly-filters/${filterId}/alerts`),
    [filterId],
  );
  const [channel, setChannel] = useState<AlertSubscription['channel']>('email');
  const [name, setName] = useState('');
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
        ...(name.trim() ? { name } : {}),
        channel,
        ...(channel === 'email' ? { email } : { url }),
        mode,
        ...(mode !== 'immediate' ? { digestHour: hour } : {}),
        ...(mode === 'weekly' ? { digestWeekday: weekday } : {}),
      };
      setFresh(await api<AlertSubscription>('POST', `/anomaly-filters/${filterId}/alerts`, body));
      setUrl('');
      setName('');
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
          <Field label="Name" errors={errorsFor(error, 'name')}>
            {(f) => (
              <input
                id={f.id}
                value={name}
                placeholder="optional: channel-id"
                onChange={(e) => setName(e.target.value)}
              />
            )}
          </Field>
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
        <Problem
          error={error}
          shown={['name', 'channel', 'email', 'url', 'mode', 'digestHour', 'digestWeekday']}
        />
        <button type="submit" className="primary">
          Subscribe
        </button>
      </form>
      <FreshSecret sub={fresh} />
      {subs.data && subs.data.length > 0 && <SubscriptionTable subs={subs.data} reload={subs.reload} />}
    </section>
  );
}
