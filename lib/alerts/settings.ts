/**
 * Alert settings, configured once by an administrator (docs/alerts.md): the public URL of the web UI (for links),
 * whether webhook targets may be in private network ranges, and the SMTP server of e-mail alerts. Stored in
 * `settings` under 'alerts'; the SMTP password lives in the secret store and is never returned.
 */
import type { Database } from '../db/database';
import { type Caller, requireAdmin } from '../identity/caller';
import { type SecretStore, serviceSecretName } from '../secrets/index';
import { readSetting, writeSetting } from '../settings/store';
import { ValidationError } from '../shared/errors';
import { resolveChecked } from '../outbound/endpoint-guard';
import type { SmtpServer } from './smtp';

const KEY = 'alerts';
export const MASK = '*****';

export interface SmtpInput {
  host: string;
  port?: number;
  secure?: boolean;
  startTls?: boolean;
  username?: string;
  /** '*****' keeps the stored password. */
  password?: string;
  from: string;
  /** The relay may be in a private network range (loopback is always allowed). */
  allowPrivateNetwork?: boolean;
  /** Accept a certificate the system does not trust (internal relays). */
  allowUntrustedCertificate?: boolean;
}

export interface AlertSettingsInput {
  /** The web UI's address, e.g. https://monitor.example.com: alerts link to it. */
  publicUrl?: string;
  /** Webhook and Slack targets may be in private network ranges. */
  allowPrivateNetwork?: boolean;
  smtp?: SmtpInput | null;
}

interface Stored {
  publicUrl: string;
  allowPrivateNetwork: boolean;
  smtp: (Omit<SmtpInput, 'password'> & { hasPassword: boolean }) | null;
}

export interface AlertSettingsView extends Stored {
  updatedAt: string | null;
}

export interface AlertSettingsDeps {
  db: Database;
  secrets: SecretStore;
}

const EMPTY: Stored = { publicUrl: '', allowPrivateNetwork: false, smtp: null };

async function read(
  deps: AlertSettingsDeps,
): Promise<{ stored: Stored; secretRef: string | null; updatedAt: Date | null }> {
  const row = await readSetting(deps.db, KEY);
  if (!row) return { stored: EMPTY, secretRef: null, updatedAt: null };
  return {
    stored: { ...EMPTY, ...(row.value as unknown as Stored) },
    secretRef: row.secretRef,
    updatedAt: row.updatedAt,
  };
}

function view(stored: Stored, updatedAt: Date | null): AlertSettingsView {
  return {
    ...stored,
    smtp: stored.smtp ? { ...stored.smtp, ...(stored.smtp.hasPassword ? { password: MASK } : {}) } : null,
    updatedAt: updatedAt?.toISOString() ?? null,
  };
}

export async function getAlertSettings(deps: AlertSettingsDeps, caller: Caller): Promise<AlertSettingsView> {
  requireAdmin(caller);
  const s = await read(deps);
  return view(s.stored, s.updatedAt);
}

export async function putAlertSettings(
  deps: AlertSettingsDeps,
  caller: Caller,
  input: AlertSettingsInput,
): Promise<AlertSettingsView> {
  requireAdmin(caller);
  const previous = await read(deps);
  let publicUrl = (input.publicUrl ?? '').trim().replace(/\/+$/, '');
  if (publicUrl) {
    try {
      const u = new URL(publicUrl);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('protocol');
      publicUrl = u.href.replace(/\/+$/, '');
    } catch {
      throw ValidationError.field('publicUrl', 'must be an http:// or https:// URL');
    }
  }
  let smtp: Stored['smtp'] = null;
  let secretRef = previous.secretRef;
  if (input.smtp) {
    const s = input.smtp;
    const port = s.port ?? (s.secure ? 465 : 587);
    await resolveChecked(s.host, { allowPrivateNetwork: s.allowPrivateNetwork }).catch((e: Error) => {
      throw ValidationError.field('smtp.host', e.message);
    });
    let hasPassword = false;
    if (s.password === MASK) {
      if (!previous.stored.smtp?.hasPassword || !secretRef)
        throw ValidationError.field('smtp.password', 'has no stored value to keep; send the password');
      // The password goes where host, port and TLS settings say: any change of them needs it sent again.
      const before = previous.stored.smtp;
      const moved =
        before.host !== s.host ||
        (before.port ?? 587) !== port ||
        (before.secure ?? port === 465) !== (s.secure ?? port === 465) ||
        (before.startTls ?? !(before.secure ?? false)) !== (s.startTls ?? !(s.secure ?? port === 465));
      if (moved)
        throw ValidationError.field(
          'smtp.password',
          'the host, port or TLS settings changed, so the stored password is not kept: send it again',
        );
      hasPassword = true;
    } else if (s.password) {
      secretRef = await deps.secrets.put(serviceSecretName('alerts-smtp-password'), s.password);
      hasPassword = true;
    }
    smtp = {
      host: s.host,
      port,
      secure: s.secure ?? port === 465,
      startTls: s.startTls ?? !(s.secure ?? port === 465),
      username: s.username ?? '',
      from: s.from,
      allowPrivateNetwork: s.allowPrivateNetwork ?? false,
      allowUntrustedCertificate: s.allowUntrustedCertificate ?? false,
      hasPassword,
    };
  }
  if (!smtp?.hasPassword && secretRef) {
    await deps.secrets.delete(secretRef).catch(() => undefined);
    secretRef = null;
  }
  const stored: Stored = { publicUrl, allowPrivateNetwork: input.allowPrivateNetwork ?? false, smtp };
  const now = new Date();
  const value = stored as unknown as Record<string, unknown>;
  await writeSetting(deps.db, KEY, { value, secretRef, updatedAt: now });
  return view(stored, now);
}

/** What delivery needs: the settings with the SMTP password decrypted (internal use only). */
export async function loadAlertSettings(deps: AlertSettingsDeps): Promise<{
  publicUrl: string;
  allowPrivateNetwork: boolean;
  smtp: (SmtpServer & { allowPrivateNetwork: boolean }) | null;
}> {
  const s = await read(deps);
  const smtp = s.stored.smtp;
  return {
    publicUrl: s.stored.publicUrl,
    allowPrivateNetwork: s.stored.allowPrivateNetwork,
    smtp: smtp
      ? {
          host: smtp.host,
          port: smtp.port ?? 587,
          secure: smtp.secure ?? false,
          startTls: smtp.startTls ?? false,
          username: smtp.username || undefined,
          password: smtp.hasPassword && s.secretRef ? await deps.secrets.get(s.secretRef) : undefined,
          from: smtp.from,
          rejectUnauthorized: !smtp.allowUntrustedCertificate,
          allowPrivateNetwork: smtp.allowPrivateNetwork ?? false,
        }
      : null,
  };
}
