/** Sign-in with e-mail and password; the token lands in sessionStorage. */
import type * as Api from '../lib/api-types.gen';
import { type FormEvent, useState } from 'react';
import { Field, Problem } from '../components/ui';
import { api } from '../lib/api';
import { setToken } from '../lib/session';

export function SignInPage() {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const r = await api<Api.TokenAnswer>('POST', '/auth/token', { email, password });
      setToken(r.accessToken);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="signin" id="main">
      <form onSubmit={submit} aria-labelledby="signin-title" className="card">
        <h1 id="signin-title">Anomaly monitor</h1>
        <p className="muted">Sign in to see your filters and anomalies.</p>
        <Field label="E-mail">
          {(f) => (
            <input
              id={f.id}
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password">
          {(f) => (
            <input
              id={f.id}
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <Problem error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}
