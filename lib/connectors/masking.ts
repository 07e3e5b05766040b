/** Keeps connector secrets out of everything shown: masked configurations and scrubbed driver messages. */
import { libpqPairs, pgUrlPairs, urlParts } from './conn-string/pg-forms';
import {
  type ConnPair,
  isSensitiveKey,
  looksLikeUrl,
  normalizeKey,
  tokenizeConnString,
} from './conn-string/tokenize';

export const MASK = '*****';

/** The pairs of any supported connection-string form, or undefined when the text does not parse. */
function pairsOf(text: string): ConnPair[] | undefined {
  try {
    if (looksLikeUrl(text)) return urlPairsOf(text);
    return libpqPairs(text) ?? tokenizeConnString(text);
  } catch {
    return undefined;
  }
}

/** URL pairs with the password located in the text, whatever the scheme. */
function urlPairsOf(text: string): ConnPair[] {
  const u = urlParts(text);
  if (u.scheme === 'postgres' || u.scheme === 'postgresql') return pgUrlPairs(text);
  const out: ConnPair[] = [];
  if (u.userinfo && u.userinfo.colon >= 0) {
    const { colon, end } = u.userinfo;
    out.push({ key: 'password', norm: 'password', value: text.slice(colon + 1, end), start: colon + 1, end });
  }
  return out;
}

/**
 * The connection string with the values of Password, PWD and any key naming a password, secret, token or
 * key replaced by `*****`; a URL's password too. Text that does not parse is masked whole.
 */
export function maskConnString(text: string): string {
  const pairs = pairsOf(text);
  if (!pairs) return MASK;
  const spans = pairs
    .filter((p) => isSensitiveKey(p.norm) && p.start >= 0)
    .map((p) => [p.start, p.end] as const)
    .sort((a, b) => b[0] - a[0]);
  let out = text;
  for (const [start, end] of spans) out = out.slice(0, start) + MASK + out.slice(end);
  return out;
}

/**
 * A copy of a connector configuration fit to show: `conn_string` masked, and every field named like a
 * secret (fabric's client_secret) replaced by `*****`. `type` is accepted for symmetry with the port.
 */
export function maskConfiguration(_type: string, configuration: unknown): Record<string, unknown> {
  if (!configuration || typeof configuration !== 'object') return {};
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(configuration)) {
    if (k === 'conn_string' && typeof v === 'string') out[k] = maskConnString(v);
    else if (isSensitiveKey(normalizeKey(k))) out[k] = MASK;
    else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' || v === null)
      out[k] = v;
    else out[k] = MASK; // nested values are not part of any configuration: show nothing of them
  }
  return out;
}

/** Every secret value of a configuration, as written and as decoded, for scrubSecrets. */
export function secretsOf(configuration: unknown): string[] {
  if (!configuration || typeof configuration !== 'object') return [];
  const out = new Set<string>();
  for (const [k, v] of Object.entries(configuration)) {
    if (typeof v !== 'string') continue;
    if (k === 'conn_string') {
      const pairs = pairsOf(v);
      if (!pairs) {
        out.add(v);
        continue;
      }
      for (const p of pairs) {
        if (!isSensitiveKey(p.norm)) continue;
        out.add(p.value);
        if (p.start >= 0) out.add(v.slice(p.start, p.end));
      }
    } else if (isSensitiveKey(normalizeKey(k))) {
      out.add(v);
    }
  }
  out.delete('');
  return [...out];
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Cleans a driver or job message: every occurrence of each secret (and its URL-encoded form) becomes
 * `*****`, as do `password=…`-style pairs and URL passwords. Secrets shorter than four characters are
 * replaced only as whole words, or the message would be unreadable without hiding anything.
 */
export function scrubSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  const forms = new Set<string>();
  for (const s of secrets) {
    if (!s) continue;
    forms.add(s);
    forms.add(encodeURIComponent(s));
  }
  for (const s of [...forms].sort((a, b) => b.length - a.length)) {
    if (s.length >= 4) out = out.split(s).join(MASK);
    else out = out.replace(new RegExp(`(?<![\\w])${escapeRegExp(s)}(?![\\w])`, 'g'), MASK);
  }
  out = out.replace(
    /\b(\w*(?:password|passwd|pwd|secret|token|private_key)\w*)(\s*[=:]\s*)("[^"]*"|'[^']*'|\{[^}]*\}|[^\s;,&)]+)/gi,
    (_m, k: string, sep: string) => `${k}${sep}${MASK}`,
  );
  out = out.replace(/(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)([^\s@]+)@/gi, `$1${MASK}@`);
  return out;
}
