/**
 * Create or edit a connector. Secrets are write-only: the form shows the masked value as a placeholder,
 * and an edit that leaves the configuration empty keeps the stored secret (PUT without configuration).
 */
import { type FormEvent, useState } from 'react';
import { Field, errorsFor, Problem } from '../components/ui';
import { api, enc } from '../lib/api';
import type { Connector, ConnectorType } from '../lib/types';

const TYPES: Array<[ConnectorType, string]> = [
  ['pgsql', 'PostgreSQL family (connection string)'],
  ['mssql', 'SQL Server family (connection string)'],
  ['oracle', 'Oracle family (connection string)'],
  ['snowflake', 'Snowflake (connection string)'],
  ['fabric', 'Fabric SQL endpoint (service principal)'],
];

const FABRIC: Array<[string, string, boolean]> = [
  ['server', 'Server', false],
  ['database', 'Database', false],
  ['tenant_id', 'Tenant id', false],
  ['client_id', 'Client id', false],
  ['client_secret', 'Client secret', true],
];

export function ConnectorForm({
  connector,
  onDone,
}: {
  connector: Connector | null;
  onDone: (saved: Connector | null) => void;
}) {
  const [name, setName] = useState(connector?.name ?? '');
  const [type, setType] = useState<ConnectorType>(connector?.type ?? 'pgsql');
  const [description, setDescription] = useState(connector?.description ?? '');
  const [config, setConfig] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const editing = connector !== null;
  const keys =
    type === 'fabric'
      ? FABRIC
      : ([['conn_string', 'Connection string', true]] as Array<[string, string, boolean]>);
  const placeholder = (k: string) =>
    connector && connector.type === type ? String(connector.configuration[k] ?? '') : '';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    const typed = Object.fromEntries(keys.map(([k]) => [k, config[k] ?? '']).filter(([, v]) => v !== ''));
    // On edit an untouched configuration is left out, which keeps the stored (encrypted) one.
    const configuration =
      editing && Object.keys(typed).length === 0 && connector.type === type ? undefined : typed;
    try {
      const saved = editing
        ? await api<Connector>('PUT', `/connectors/${enc(connector.name)}`, {
            type,
            description,
            configuration,
          })
        : await api<Connector>('POST', '/connectors', { name, type, description, configuration });
      onDone(saved);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="card connector-form" onSubmit={submit} aria-labelledby="connector-form-title">
      <h2 id="connector-form-title">{editing ? `Edit connector ${connector.name}` : 'New connector'}</h2>
      <div className="row">
        <Field label="Name" errors={errorsFor(error, 'name')} hint="Letters, digits, _ - . (used in paths)">
          {(f) => (
            <input
              id={f.id}
              aria-describedby={f.describedBy}
              required
              readOnly={editing}
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
          )}
        </Field>
        <Field label="Type" errors={errorsFor(error, 'type')}>
          {(f) => (
            <select id={f.id} value={type} onChange={(e) => setType(e.target.value as ConnectorType)}>
              {TYPES.map(([t, label]) => (
                <option key={t} value={t}>
                  {label}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Field label="Description" errors={errorsFor(error, 'description')}>
        {(f) => <input id={f.id} value={description} onChange={(e) => setDescription(e.target.value)} />}
      </Field>
      <fieldset>
        <legend>
          Configuration {editing && <small className="muted">(leave empty to keep the stored secret)</small>}
        </legend>
        {keys.map(([k, label, secret]) => (
          <Field key={k} label={label} errors={errorsFor(error, `configuration.${k}`)}>
            {(f) => (
              <input
                id={f.id}
                className="mono"
                type={secret ? 'password' : 'text'}
                autoComplete="off"
                required={!editing}
                placeholder={placeholder(k)}
                value={config[k] ?? ''}
                onChange={(e) => setConfig({ ...config, [k]: e.target.value })}
              />
            )}
          </Field>
        ))}
        {errorsFor(error, 'configuration').length > 0 && (
          <div className="field-error">{errorsFor(error, 'configuration').join('; ')}</div>
        )}
      </fieldset>
      <Problem error={error} shown={['name', 'type', 'description', 'configuration']} />
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : editing ? 'Save connector' : 'Create connector'}
        </button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
    </form>
  );
}
