/** The one error policy: domain error codes to HTTP statuses, everything unknown to a generic 500 that leaks nothing. */
import { AppError, type ErrorCode, type FieldError } from '../shared/errors';
import { databaseErrorCode } from '../db/errors';
import { databaseDataException } from './input-guard';

const statusOf: Record<ErrorCode, number> = {
  VALIDATION: 400,
  UNAUTHENTICATED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UPSTREAM: 502,
  TOO_MANY_REQUESTS: 429,
  TOO_LARGE: 413,
  INTERNAL: 500,
};

const titleOf: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  requestId: string;
  errors?: FieldError[];
}

export function problemFor(error: unknown, requestId: string): Problem {
  if (error instanceof HttpStatusError) return plainProblem(error.status, error.message, requestId);
  if (error instanceof AppError) {
    const status = statusOf[error.code] ?? 500;
    const p: Problem = {
      type: `https://anomaly-monitor.dev/problems/${error.code.toLowerCase().replace(/_/g, '-')}`,
      title: titleOf[status] ?? 'Error',
      status,
      detail: error.message,
      requestId,
    };
    if (error.errors?.length) p.errors = error.errors;
    return p;
  }
  // A query stopped by the connection's statement_timeout (SQLSTATE 57014): a bound, not a fault.
  if (databaseErrorCode(error, /^57014$/)) {
    return {
      type: 'https://anomaly-monitor.dev/problems/query-timeout',
      title: titleOf[503],
      status: 503,
      detail:
        'The query ran longer than the service allows and was stopped. Narrow the period or the categories, or try again once the running load or detection has finished.',
      requestId,
    };
  }
  // Backstop of the input guard: a value the database refused as data (class 22) came from the request, not from a fault.
  const refused = databaseDataException(error);
  if (refused) {
    return {
      type: 'https://anomaly-monitor.dev/problems/validation',
      title: titleOf[400],
      status: 400,
      detail: `The request holds a value the database cannot store or compare (SQLSTATE ${refused.code}): a character such as NUL, a number out of range or a malformed value.`,
      requestId,
    };
  }
  return {
    type: 'about:blank',
    title: titleOf[500],
    status: 500,
    detail: `An unexpected error occurred. Quote request id ${requestId} when reporting it.`,
    requestId,
  };
}

export function statusForCode(code: ErrorCode): number {
  return statusOf[code];
}

export function plainProblem(status: number, detail: string, requestId: string): Problem {
  return { type: 'about:blank', title: titleOf[status] ?? 'Error', status, detail, requestId };
}

/** An HTTP-level refusal that has no domain meaning (unknown route, wrong method, body too large). */
export class HttpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'HttpStatusError';
  }
}
