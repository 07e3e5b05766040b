/** Exit codes of service-cli and the one error type that carries them to main. */

export const ExitCode = {
  ok: 0,
  /** The server failed (5xx), could not be reached, or something unexpected happened. */
  failure: 1,
  /** Bad arguments or options, an unreadable --file, a missing setting. */
  usage: 2,
  /** 401 or 403: no, wrong or expired credentials, or not allowed (role, licence limit). */
  auth: 3,
  notFound: 4,
  /** 409: the state does not allow it (already deployed, a load already queued, ...). */
  conflict: 5,
  /** 400 (and 413, 415): the input was refused; the fields at fault are listed. */
  validation: 6,
  /** --wait followed a job that ended failed. */
  jobFailed: 7,
  /** apply --dry-run: the plan would change something. */
  changesPending: 8,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

/** The lines `--help` prints: code and meaning. */
export const EXIT_CODE_HELP: Array<[number, string]> = [
  [ExitCode.ok, 'success'],
  [ExitCode.failure, 'server error (5xx), service unreachable, or unexpected failure'],
  [ExitCode.usage, 'usage error: bad arguments or options, unreadable --file'],
  [ExitCode.auth, 'authentication or permission refused (401, 403)'],
  [ExitCode.notFound, 'not found (404), or not visible to you'],
  [ExitCode.conflict, 'conflict with the current state (409)'],
  [ExitCode.validation, 'invalid input (400): the fields at fault are printed'],
  [ExitCode.jobFailed, 'a job followed with --wait ended failed'],
  [ExitCode.changesPending, 'apply --dry-run: the plan would change something'],
];

export interface FieldProblem {
  path: string;
  message: string;
}

/** RFC 9457 problem as the service sends it. */
export interface Problem {
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  requestId?: string;
  errors?: FieldProblem[];
}

/** A failure to report: message on stderr, field errors below it, then exit with `exitCode`. */
export class CliError extends Error {
  readonly exitCode: ExitCodeValue;
  readonly problem?: Problem;

  constructor(message: string, exitCode: ExitCodeValue, problem?: Problem, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.name = 'CliError';
    this.exitCode = exitCode;
    if (problem) this.problem = problem;
  }

  static usage(message: string): CliError {
    return new CliError(message, ExitCode.usage);
  }
}

/** Maps an HTTP status to the exit code that names its kind. */
export function exitCodeForStatus(status: number): ExitCodeValue {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  if (status === 409) return ExitCode.conflict;
  if (status === 400 || status === 413 || status === 415 || status === 422) return ExitCode.validation;
  return ExitCode.failure;
}
