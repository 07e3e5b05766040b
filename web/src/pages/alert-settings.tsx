/** Administrators' alert settings: the public URL for links and the SMTP server of e-mail alerts. */
import { type FormEvent, useState } from 'react';
import { Field, errorsFor, Loading, Problem } from '../components/ui';
import { api } from '../lib/api';
import { smtpBody, smtpForm } from '../lib/alert-settings';
import type * as Api from '../lib/api-types.gen';
import { when } from '../lib/format';
import { useLoad } from '../lib/use-load';

type AlertSettings = Api.AlertSettingsView;

/** Administrators: the public URL for links and the SMTP server of e-mail alerts. */
export function AlertSettingsForm() {
  const loaded = useLoad(() => api<AlertSettings>('GET', '/settings/alerts'), []);
  if (loaded.loading && !loaded.data) return <Loading what="Loading the alert settings" />;
  if (!loaded.data) return <Problem error={loaded.error} />;
  return <AlertSettingsEditor initial={loaded.data} />;
}

function AlertSettingsEditor({ initial }: { initial: AlertSettings }) {
  const [publicUrl, setPublicUrl] = useState(initial.publicUrl);
  const [allowPrivate, setAllowPrivate] = useState(initial.allowPrivateNetwork);
  const [smtpOn, setSmtpOn] = useState(initial.smtp !== null);
  const [smtp, setSmtp] = useState(() => smtpForm(initial.smtp));
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const set = (patch: Partial<typeof smtp>) => setSmtp({ ...smtp, ...patch });
  const save = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    setSaved(null);
    try {
      const r = await api<AlertSettings>('PUT', '/settings/alerts', {
        publicUrl,
        allowPrivateNetwork: allowPrivate,
        smtp: smtpOn ? smtpBody(smtp) : null,
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
                  value={smtp.password}
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
