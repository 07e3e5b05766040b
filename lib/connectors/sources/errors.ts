/** Turns driver errors into UpstreamError with a short human message and no secret in it. */
import { AppError, UpstreamError } from '../../shared/errors';
import { scrubSecrets } from '../masking';

export interface ErrorContext {
  /** "host:port" the connector points at. */
  target: string;
  secrets: readonly string[];
}

const NETWORK: Array<[RegExp, string]> = [
  [/ECONNREFUSED/, 'connection refused'],
  [/ENOTFOUND|EAI_AGAIN|getaddrinfo/, 'host not found'],
  [/EHOSTUNREACH|ENETUNREACH/, 'host unreachable'],
  [/ECONNRESET|EPIPE|socket hang up/, 'connection reset by the server'],
  [/ETIMEDOUT|ETIMEOUT|CONNECT_TIMEOUT|NJS-510|timeout of \d+ms exceeded/, 'timed out'],
];

const TLS = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|certificate/i;

/** Codes and messages of an error and of everything it wraps (cause, originalError, AggregateError). */
function chain(err: unknown): Array<{ code: string; message: string }> {
  const out: Array<{ code: string; message: string }> = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number) => {
    if (!e || typeof e !== 'object' || seen.has(e) || depth > 5) return;
    seen.add(e);
    const o = e as {
      code?: unknown;
      errno?: unknown;
      message?: unknown;
      cause?: unknown;
      originalError?: unknown;
    };
    out.push({
      code: typeof o.code === 'string' ? o.code : typeof o.errno === 'string' ? o.errno : '',
      message: typeof o.message === 'string' ? o.message : '',
    });
    visit(o.cause, depth + 1);
    visit(o.originalError, depth + 1);
    const errors = (e as { errors?: unknown }).errors;
    if (Array.isArray(errors)) for (const x of errors) visit(x, depth + 1);
  };
  visit(err, 0);
  return out;
}

/** First line, without driver noise such as Oracle's (CONNECTION_ID=…), scrubbed, at most 400 characters. */
export function cleanMessage(message: string, secrets: readonly string[]): string {
  const first =
    message
      .split('\n')
      .map((l) => l.trim())
      .find(Boolean) ?? '';
  const tidy = first
    .replace(/\s*\(CONNECTION_ID=[^)]*\)/g, '')
    .replace(/^(ConnectionError|RequestError|PostgresError|Error):\s*/, '')
    .trim();
  const scrubbed = scrubSecrets(tidy, secrets);
  return scrubbed.length > 400 ? `${scrubbed.slice(0, 399)}…` : scrubbed;
}

/**
 * "could not connect to 127.0.0.1:1: connection refused" for network failures; otherwise the database's
 * own message (scrubbed), prefixed by what was being done. The raw error is not kept as the cause,
 * because drivers sometimes copy their options (and so a password) into it.
 */
export function toUpstreamError(err: unknown, ctx: ErrorContext, phase: 'connect' | 'query'): AppError {
  if (err instanceof AppError) return err;
  const links = chain(err);
  const all = links.map((l) => `${l.code} ${l.message}`).join('\n');
  for (const [pattern, what] of NETWORK) {
    if (!pattern.test(all)) continue;
    const lost = phase === 'query' && what.startsWith('connection reset');
    return upstream(
      `${lost ? 'lost the connection to' : 'could not connect to'} ${ctx.target}: ${what}`,
      links,
      ctx,
    );
  }
  const tlsLink = links.find((l) => TLS.test(l.code) || TLS.test(l.message));
  if (tlsLink && phase === 'connect') {
    const detail = cleanMessage(tlsLink.message || tlsLink.code, ctx.secrets);
    return upstream(
      `could not connect to ${ctx.target}: TLS certificate rejected (${detail}); fix the certificate or trust it explicitly (TrustServerCertificate=true)`,
      links,
      ctx,
    );
  }
  // The outermost message of a database error is the one meant for people.
  const message = cleanMessage(links.find((l) => l.message)?.message ?? String(err), ctx.secrets);
  return upstream(
    phase === 'connect' ? `could not connect to ${ctx.target}: ${message}` : message,
    links,
    ctx,
  );
}

function upstream(
  message: string,
  links: Array<{ code: string; message: string }>,
  ctx: ErrorContext,
): UpstreamError {
  const first = links[0];
  const cause = first
    ? Object.assign(new Error(cleanMessage(first.message, ctx.secrets)), { code: first.code })
    : undefined;
  return new UpstreamError(message, cause);
}

/** A source query refused before it is sent, because the adapter could not keep it from writing. */
export class ReadOnlyQueryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReadOnlyQueryError';
  }
}
