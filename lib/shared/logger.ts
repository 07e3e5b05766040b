/**
 * The one logger, on AWS Lambda Powertools: JSON lines with the service, level, timestamp and, inside a
 * Lambda invocation, the request id, cold start and function (see lib/shared/observability.ts); an
 * error is written with its whole cause chain. Debug sampling: Powertools reads its own
 * POWERTOOLS_LOGGER_SAMPLE_RATE (0..1 of invocations log at debug level whatever the configured level);
 * the level is set by the composition root from the config (lib/config reads the environment).
 */
import { Logger as Powertools } from '@aws-lambda-powertools/logger';

type Level = 'debug' | 'info' | 'warn' | 'error';
const POWERTOOLS_LEVEL = {
  debug: 'DEBUG',
  info: 'INFO',
  warn: 'WARN',
  error: 'ERROR',
  silent: 'SILENT',
} as const;

/** The service's name in every log line, metric and trace. */
export const SERVICE_NAME = 'anomaly-monitor';

/** The Powertools logger behind every Logger (one instance: the level applies to all children). */
export const powertoolsLogger = new Powertools({
  serviceName: SERVICE_NAME,
  logLevel: 'INFO',
});

/** Set once by the composition root from the config. */
export function setLogLevel(level: Level | 'silent'): void {
  powertoolsLogger.setLogLevel(POWERTOOLS_LEVEL[level]);
}

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

function make(base: Record<string, unknown>): Logger {
  // Powertools formats Error values (name, message, stack, cause chain) wherever they sit in the fields.
  const write = (level: Level, msg: string, fields?: Record<string, unknown>) =>
    powertoolsLogger[level](msg, { ...base, ...fields });
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (fields) => make({ ...base, ...fields }),
  };
}

export const logger: Logger = make({});
