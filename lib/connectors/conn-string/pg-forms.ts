/** The two PostgreSQL-native spellings of a connection (URL and libpq keywords), read as pairs. */
import { connStringError } from './errors';
import { type ConnPair, normalizeKey } from './tokenize';

/** Where a URL's user info ends: the last '@' before the query, so an unescaped '@' in a password survives. */
export function urlParts(text: string): {
  scheme: string;
  userinfo?: { start: number; colon: number; end: number };
  authority: string;
  path: string;
  query: string;
  queryStart: number;
} {
  const m = /^\s*([a-z][a-z0-9+.-]*):\/\//i.exec(text);
  if (!m) throw connStringError('not a URL');
  const base = m[0].length;
  const q = text.indexOf('?', base);
  const headEnd = q < 0 ? text.length : q;
  const at = text.lastIndexOf('@', headEnd - 1);
  let userinfo: { start: number; colon: number; end: number } | undefined;
  let hostStart = base;
  if (at >= base) {
    const colon = text.indexOf(':', base);
    userinfo = { start: base, colon: colon >= 0 && colon < at ? colon : -1, end: at };
    hostStart = at + 1;
  }
  const slash = text.indexOf('/', hostStart);
  const authorityEnd = slash >= 0 && slash < headEnd ? slash : headEnd;
  return {
    scheme: m[1].toLowerCase(),
    userinfo,
    authority: text.slice(hostStart, authorityEnd),
    path: authorityEnd < headEnd ? text.slice(authorityEnd + 1, headEnd) : '',
    query: q < 0 ? '' : text.slice(q + 1),
    queryStart: q < 0 ? -1 : q + 1,
  };
}

function decode(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw connStringError(`the URL ${what} has an invalid %-escape`);
  }
}

function pair(key: string, value: string, start = -1, end = -1): ConnPair {
  return { key, norm: normalizeKey(key), value, start, end };
}

/** postgres://user:password@host1:5432,host2/db?sslmode=require → pairs named like the ADO keys. */
export function pgUrlPairs(text: string): ConnPair[] {
  const u = urlParts(text);
  if (u.scheme !== 'postgres' && u.scheme !== 'postgresql') {
    throw connStringError(`unsupported URL scheme '${u.scheme}://' (expected postgres:// or postgresql://)`);
  }
  const out: ConnPair[] = [];
  if (u.userinfo) {
    const { start, colon, end } = u.userinfo;
    const userEnd = colon >= 0 ? colon : end;
    const user = decode(text.slice(start, userEnd), 'user');
    if (user) out.push(pair('User', user));
    if (colon >= 0)
      out.push(pair('Password', decode(text.slice(colon + 1, end), 'password'), colon + 1, end));
  }
  if (u.authority) out.push(pair('Host', decode(u.authority, 'host')));
  if (u.path) out.push(pair('Database', decode(u.path, 'database')));
  if (u.query) {
    let offset = u.queryStart;
    for (const part of u.query.split('&')) {
      const eq = part.indexOf('=');
      if (part) {
        const k = decode(eq < 0 ? part : part.slice(0, eq), 'parameter');
        const v = eq < 0 ? '' : decode(part.slice(eq + 1).replace(/\+/g, ' '), `parameter ${k}`);
        out.push(pair(k, v, eq < 0 ? -1 : offset + eq + 1, offset + part.length));
      }
      offset += part.length + 1;
    }
  }
  return out;
}

/**
 * libpq keyword form `host=h port=5432 dbname=d user=u password='a b'`: whitespace-separated, values
 * single-quoted with backslash escapes. Returns undefined when the text is not in that form.
 */
export function libpqPairs(text: string): ConnPair[] | undefined {
  if (text.includes(';')) return undefined;
  const out: ConnPair[] = [];
  const n = text.length;
  let i = 0;
  for (;;) {
    while (i < n && /\s/.test(text[i])) i++;
    if (i >= n) break;
    const k = /^[A-Za-z_][A-Za-z0-9_]*/.exec(text.slice(i));
    if (!k) return undefined;
    i += k[0].length;
    while (i < n && /[ \t]/.test(text[i])) i++;
    if (text[i] !== '=') return undefined;
    i++;
    while (i < n && /[ \t]/.test(text[i])) i++;
    const start = i;
    let value = '';
    if (text[i] === "'") {
      i++;
      for (;;) {
        if (i >= n) return undefined;
        const c = text[i];
        if (c === '\\' && i + 1 < n) {
          value += text[i + 1];
          i += 2;
        } else if (c === "'") {
          i++;
          break;
        } else {
          value += c;
          i++;
        }
      }
    } else {
      while (i < n && !/\s/.test(text[i])) {
        if (text[i] === '\\' && i + 1 < n) i++;
        value += text[i++];
      }
    }
    out.push(pair(k[0], value, start, i));
  }
  // A single pair reads the same either way; leave it to the ADO.NET parser.
  return out.length >= 2 ? out : undefined;
}
