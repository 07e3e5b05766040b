/** The one logger: JSON lines on stdout/stderr, each carrying the request or job id it belongs to. */
type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

let threshold: Level | 'silent' = 'info';

/** Set once by the composition root from the config. */
export function setLogLevel(level: Level | 'silent'): void {
  threshold = level;
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

function errorFields(value: unknown): unknown {
  if (value instanceof Error) return { name: value.name, message: value.message, stack: value.stack };
  return value;
}

function make(base: Record<string, unknown>): Logger {
  const write = (level: Level, msg: string, fields?: Record<string, unknown>) => {
    if (order[level] < order[threshold]) return;
    const rec: Record<string, unknown> = { time: new Date().toISOString(), level, msg, ...base };
    if (fields) for (const [k, v] of Object.entries(fields)) rec[k] = errorFields(v);
    const line = JSON.stringify(rec);
    if (level === 'error' || level === 'warn') process.stderr.write(`${line}\n`);
    else process.stdout.write(`${line}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => make({ ...base, ...fields }),
  };
}

export const logger: Logger = make({});
