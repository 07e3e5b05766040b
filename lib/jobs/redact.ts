/**
 * A job's error as the caller may read it. Errors of a load carry what the source's driver said: its
 * host, port, database and user ("connect ECONNREFUSED 10.0.3.7:5432", "password authentication failed
 * for user …"). An administrator reads them whole; anyone else reads that the job (or an attempt) failed
 * and its id, to give to an administrator (docs/security.md, Jobs).
 */
interface JobWithError {
  id: number;
  status: string;
  error: string | null;
  detail: Record<string, unknown> | null | undefined;
}

/** The text a data user reads instead of a job's error. */
export function genericJobError(job: Pick<JobWithError, 'id' | 'status'>): string {
  return job.status === 'failed'
    ? `Job ${job.id} failed; an administrator can see why.`
    : `An attempt of job ${job.id} failed and will be retried; an administrator can see why.`;
}

/** `job` with its error (and a load's detection-request error) generic unless read by an administrator (`isAdmin`). */
export function jobForReader<T extends JobWithError>(job: T, admin: boolean): T {
  if (admin) return job;
  const processError = job.detail?.processError;
  return {
    ...job,
    error: job.error === null ? null : genericJobError(job),
    detail:
      processError === undefined
        ? job.detail
        : {
            ...job.detail,
            processError: `The detection after job ${job.id} could not be requested; an administrator can see why.`,
          },
  };
}
