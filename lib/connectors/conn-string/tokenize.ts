/** Splits an ADO.NET connection string into key/value pairs, keeping where each value sits in the text. */
import { connStringError } from './errors';

/** One `key=value` pair. `start`/`end` locate the value's raw text (quotes included) for masking. */
export interface ConnPair {
  /** The key as written, trimmed. */
  key: string;
  /** Lower case without spaces or underscores: `User ID`, `user_id` and `UserId` all become `userid`. */
  norm: string;
  /** The value, unquoted and unescaped. */
  value: string;
  start: number;
  end: number;
}

/** Words that mark a key whose value must never be shown (Password, PWD, AccountKey, client_secret, token…). */
const SENSITIVE = /(password|passwd|pwd|psw|secret|token|key|credential|passcode)/;

/** True for keys such as Password, PWD, AccountKey, private_key_pwd or token. */
export function isSensitiveKey(norm: string): boolean {
  return SENSITIVE.test(norm);
}

/** `User ID` → `userid`: the spelling that alias tables use. */
export function normalizeKey(key: string): string {
  return key.toLowerCase().replace(/[\s_]+/g, '');
}

const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\r' || c === '\n';

/**
 * Parses `key=value;…` the way DbConnectionStringBuilder does: keys are case-insensitive and trimmed,
 * `==` in a key is a literal `=`, values may be quoted with "…" or '…' (a doubled quote inside stands
 * for one) or braced ODBC-style {…} (`}}` stands for `}`), so they may hold `;`. Empty segments are
 * skipped. Errors name the key at fault but never echo a value, because a value may be a password.
 */
export function tokenizeConnString(text: string): ConnPair[] {
  const pairs: ConnPair[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    while (i < n && (isSpace(text[i]) || text[i] === ';')) i++;
    if (i >= n) break;

    // Key: up to the first single '='.
    let key = '';
    for (;;) {
      if (i >= n || text[i] === ';') throw noEquals(pairs);
      if (text[i] === '=') {
        if (text[i + 1] === '=') {
          key += '=';
          i += 2;
          continue;
        }
        break;
      }
      key += text[i++];
    }
    i++; // past '='
    key = key.trim();
    if (!key) throw connStringError(`an entry has a value but no key (before '=')${afterHint(pairs)}`);

    while (i < n && isSpace(text[i]) && text[i] !== ';') i++;
    const start = i;
    let value: string;
    const open = text[i];
    if (open === '"' || open === "'" || open === '{') {
      const close = open === '{' ? '}' : open;
      value = '';
      i++;
      for (;;) {
        if (i >= n) throw connStringError(`the value of ${key} has an unterminated ${open}`);
        const c = text[i];
        if (c === close) {
          if (text[i + 1] === close) {
            value += close;
            i += 2;
            continue;
          }
          i++;
          break;
        }
        value += c;
        i++;
      }
      const end = i;
      while (i < n && isSpace(text[i])) i++;
      if (i < n && text[i] !== ';') {
        throw connStringError(`unexpected text after the quoted value of ${key} (expected ';')`);
      }
      pairs.push({ key, norm: normalizeKey(key), value, start, end });
    } else {
      let j = i;
      while (j < n && text[j] !== ';') j++;
      let end = j;
      while (end > start && isSpace(text[end - 1])) end--;
      value = text.slice(start, end);
      pairs.push({ key, norm: normalizeKey(key), value, start, end });
      i = j;
    }
  }
  return pairs;
}

/**
 * A segment without '=' right after a password is most likely the rest of an unquoted password that
 * contained ';', so the message explains quoting instead of showing the segment.
 */
function noEquals(pairs: ConnPair[]) {
  return connStringError(`expected key=value, found an entry without '='${afterHint(pairs)}`);
}

function afterHint(pairs: ConnPair[]): string {
  const prev = pairs[pairs.length - 1];
  if (prev && isSensitiveKey(prev.norm)) {
    return ` after ${prev.key} (a value containing ';' must be quoted: ${prev.key}="…")`;
  }
  return prev ? ` after ${prev.key}` : '';
}

/** True when the text is a URL such as postgres://user:pass@host/db. */
export function looksLikeUrl(text: string): boolean {
  return /^\s*[a-z][a-z0-9+.-]*:\/\//i.test(text);
}
