/** Domain errors carry a code, never an HTTP status; lib/http/problem.ts maps codes to statuses. */

export type ErrorCode =
  | 'VALIDATION'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'UPSTREAM'
  | 'TOO_MANY_REQUESTS'
  | 'TOO_LARGE'
  | 'INTERNAL';

/** One field at fault: `path` is dotted (`metadata.name`, `categories[1].parent`), '' for the whole body. */
export interface FieldError {
  path: string;
  message: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly errors?: FieldError[];

  constructor(code: ErrorCode, message: string, options?: { errors?: FieldError[]; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    if (options?.errors) this.errors = options.errors;
  }
}

export class ValidationError extends AppError {
  constructor(message: string, errors: FieldError[] = [], cause?: unknown) {
    super('VALIDATION', message, { errors, cause });
    this.name = 'ValidationError';
  }

  /** A single bad field. */
  static field(path: string, message: string): ValidationError {
    return new ValidationError(`${path || 'body'}: ${message}`, [{ path, message }]);
  }
}

export class UnauthenticatedError extends AppError {
  constructor(message = 'Missing or invalid credentials.') {
    super('UNAUTHENTICATED', message);
    this.name = 'UnauthenticatedError';
  }
}

export class ForbiddenError extends AppError {
  constructor(message = 'You are not allowed to do this.') {
    super('FORBIDDEN', message);
    this.name = 'ForbiddenError';
  }
}

export class NotFoundError extends AppError {
  constructor(message: string) {
    super('NOT_FOUND', message);
    this.name = 'NotFoundError';
  }
}

export class ConflictError extends AppError {
  constructor(message: string) {
    super('CONFLICT', message);
    this.name = 'ConflictError';
  }
}

/** A dependency outside the service (source database, language model) failed; the message is safe to show. */
export class UpstreamError extends AppError {
  constructor(message: string, cause?: unknown) {
    super('UPSTREAM', message, { cause });
    this.name = 'UpstreamError';
  }
}

/** Too many attempts (sign-in throttling): the caller may try again after `retryAfterSeconds`. */
export class TooManyRequestsError extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('TOO_MANY_REQUESTS', message);
    this.name = 'TooManyRequestsError';
  }
}

/** An answer larger than the service gives at once: the message says how to ask for less. */
export class TooLargeError extends AppError {
  constructor(message: string, errors?: FieldError[]) {
    super('TOO_LARGE', message, errors ? { errors } : undefined);
    this.name = 'TooLargeError';
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
