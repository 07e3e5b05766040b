/** A user's alert subscriptions as a table: rename, enable/disable, test, deliveries and delete (docs/alerts.md). */
import { type FormEvent, Fragment, useState } from 'react';
import { api } from '../../lib/api';
import type * as Api from '../../lib/api-types.gen';
import { when } from '../../lib/format';
import { useLoad } from '../../lib/use-load';
import { Badge, ConfirmButton, errorsFor, Field, Loading, Problem } from '../ui';

/** A subscription as the API answers it (schemas/responses/alerts.schema.json). */
export type AlertSubscription = Api.SubscriptionView;

type Delivery = Api.DeliveryRow;

export const HOURS = Array.from({ length: 24 }, (_, h) => h);
export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const CHANNELS = { webhook: 'Webhook', slack: 'Slack', email: 'E-mail' } as const;

function modeText(s: AlertSubscription): string {
  if (s.mode === 'immediate') return 'after each detection';
  const at = `${String(s.digestHour).padStart(2, '0')}:00`;
  return s.mode === 'daily'
    ? `daily digest at ${at}`
    : `weekly digest, ${WEEKDAYS[s.digestWeekday - 1]} ${at}`;
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

/** The name of a subscription, edited in place: Save sends it, a refused name shows its reason. */
function RenameForm({ sub, done }: { sub: AlertSubscription; done: (saved: boolean) => Promise<unknown> }) {
  const [name, setName] = useState(sub.name);
  const [error, setError] = useState<unknown>(null);
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await api('PUT', `/anomaly-filters/alerts/${sub.id}`, { name });
      await done(true);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form aria-label={`Rename ${sub.name}`} onSubmit={save}>
      <Field label="Name" errors={errorsFor(error, 'name')}>
        {(f) => <input id={f.id} required value={name} onChange={(e) => setName(e.target.value)} />}
      </Field>
      <Problem error={error} shown={['name']} />
      <button type="submit" className="primary">
        Save
      </button>{' '}
      <button type="button" onClick={() => done(false)}>
        Cancel
      </button>
    </form>
  );
}

/** The subscriptions as a table with rename, enable/disable, test, deliveries and delete. */
export function SubscriptionTable({
  subs,
  reload,
}: {
  subs: AlertSubscription[];
  reload: () => Promise<unknown>;
}) {
  const [open, setOpen] = useState<number | null>(null);
  const [renaming, setRenaming] = useState<number | null>(null);
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
            <th scope="col">Name</th>
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
                  {renaming === s.id ? (
                    <RenameForm
                      sub={s}
                      done={async (saved) => {
                        setRenaming(null);
                        if (saved) await reload();
                      }}
                    />
                  ) : (
                    <>
                      {s.name}{' '}
                      <button
                        type="button"
                        className="link"
                        aria-label={`Rename ${s.name}`}
                        onClick={() => setRenaming(s.id)}
                      >
                        Rename
                      </button>
                    </>
                  )}
                </td>
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
                        const r = await api<Api.AlertTestResult>(
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
                  <td colSpan={8}>
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
