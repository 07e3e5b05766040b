/** Reads typed settings out of parsed pairs by alias, with one error message style for every type. */
import { connStringError } from './errors';
import { type ConnPair, isSensitiveKey, normalizeKey } from './tokenize';

/** A setting and the spellings accepted for it; `label` is the name used in "missing …" messages. */
export interface KeyDef {
  label: string;
  norms: readonly string[];
}

/** `key('Server', 'Data Source', 'Host')`: the first spelling is the label. */
export function key(label: string, ...aliases: string[]): KeyDef {
  return { label, norms: [label, ...aliases].map(normalizeKey) };
}

const TRUE = new Set(['true', 'yes', '1', 'on']);
const FALSE = new Set(['false', 'no', '0', 'off']);

export class ConnReader {
  private readonly used = new Set<ConnPair>();

  constructor(private readonly pairs: readonly ConnPair[]) {}

  /** The pair for a setting; when several aliases are given the last one wins, as in ADO.NET. */
  pair(def: KeyDef): ConnPair | undefined {
    let found: ConnPair | undefined;
    for (const p of this.pairs) {
      if (def.norms.includes(p.norm)) {
        this.used.add(p);
        found = p;
      }
    }
    return found;
  }

  /** The value, or undefined when absent or empty. */
  str(def: KeyDef): string | undefined {
    const value = this.pair(def)?.value;
    return value === undefined || value === '' ? undefined : value;
  }

  /** The value; "missing <label>" when absent or empty. */
  required(def: KeyDef): string {
    const value = this.str(def);
    if (value === undefined) throw connStringError(`missing ${def.label}`);
    return value;
  }

  /** A whole number within bounds: "Port 'abc' is not a number". */
  int(def: KeyDef, min: number, max: number): number | undefined {
    const p = this.pair(def);
    if (!p || p.value === '') return undefined;
    return parseIntValue(p.key, p.value, min, max);
  }

  /** Seconds as ADO.NET writes them; 0 ("wait forever") falls back to the service's own bound. */
  seconds(def: KeyDef): number | undefined {
    const s = this.int(def, 0, 86_400);
    return s === 0 ? undefined : s;
  }

  /** true/false/yes/no (also 1/0/on/off). */
  bool(def: KeyDef): boolean | undefined {
    const p = this.pair(def);
    if (!p || p.value === '') return undefined;
    const v = p.value.trim().toLowerCase();
    if (TRUE.has(v)) return true;
    if (FALSE.has(v)) return false;
    throw connStringError(`${p.key} '${p.value}' is not true or false`);
  }

  /**
   * One of a fixed set of words, compared without case, spaces, '-' or '_' (verify-full = VerifyFull):
   * "unknown SSL Mode 'sometimes' (expected disable, allow, …)".
   */
  choice<T>(def: KeyDef, choices: Record<string, T>, shown: string[]): T | undefined {
    const p = this.pair(def);
    if (!p || p.value === '') return undefined;
    const v = p.value.toLowerCase().replace(/[\s_-]+/g, '');
    if (Object.hasOwn(choices, v)) return choices[v];
    throw connStringError(`unknown ${p.key} '${p.value}' (expected ${shown.join(', ')})`);
  }

  /** Accepts the settings without using them (pooling and similar client-side knobs). */
  ignore(...defs: KeyDef[]): void {
    for (const def of defs) this.pair(def);
  }

  /** Fails on the first key no alias claimed, so a typo such as "Pasword" is caught at creation. */
  rejectUnknown(typeLabel: string): void {
    this.pairs.forEach((p, i) => {
      if (this.used.has(p)) return;
      const prev = this.pairs[i - 1];
      // After a password an unknown key is probably the tail of an unquoted password: do not echo it.
      if (prev && isSensitiveKey(prev.norm)) {
        throw connStringError(
          `unknown key after ${prev.key} (a value containing ';' must be quoted: ${prev.key}="…")`,
        );
      }
      throw connStringError(`unknown key '${p.key}' for ${typeLabel}`);
    });
  }
}

/** Parses a whole number; the message names the key and the (non-secret) value. */
export function parseIntValue(keyName: string, raw: string, min: number, max: number): number {
  const v = raw.trim();
  if (!/^\d+$/.test(v)) throw connStringError(`${keyName} '${raw}' is not a number`);
  const n = Number(v);
  if (n < min || n > max) throw connStringError(`${keyName} ${n} is out of range (${min}-${max})`);
  return n;
}

/** A host with an optional port. */
export interface HostPort {
  host: string;
  port?: number;
}

/**
 * Splits "host,port" (SQL Server style, when `comma`), "host:port", "[v6]:port" or a bare host.
 * A bare IPv6 address (several ':') is taken as a host.
 */
export function splitHostPort(value: string, keyName: string, comma: boolean): HostPort {
  const v = value.trim();
  const bracket = /^\[([^\]]+)\](?:\s*[:,]\s*(.*))?$/.exec(v);
  if (bracket) {
    const port = bracket[2];
    return port === undefined ? { host: bracket[1] } : { host: bracket[1], port: portOf(keyName, port) };
  }
  if (comma && v.includes(',')) {
    const at = v.lastIndexOf(',');
    return { host: v.slice(0, at).trim(), port: portOf(keyName, v.slice(at + 1)) };
  }
  const colons = v.split(':').length - 1;
  if (colons === 1) {
    const at = v.indexOf(':');
    return { host: v.slice(0, at).trim(), port: portOf(keyName, v.slice(at + 1)) };
  }
  return { host: v };
}

function portOf(keyName: string, raw: string): number {
  return parseIntValue(`${keyName} port`, raw, 1, 65_535);
}
