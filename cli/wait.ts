/** Follows a job to its end (`--wait`): polls GET /jobs/{id}, shows each change of status, fails when the job fails. */
import { CliError, ExitCode } from './errors';
import type { ApiClient } from './http-client';
import type { Output } from './output';

export interface WaitOptions {
  /** Seconds between polls. */
  interval: number;
  /** Give up after this many seconds; 0 waits for ever. */
  timeout: number;
}

const TERMINAL = new Set(['finished', 'failed']);

/** The job record in an answer: the answer itself, or its `job` field. */
export function jobOf(answer: any): any {
  return answer?.job && typeof answer.job === 'object' ? answer.job : answer;
}

/** A job's id in an enqueue answer, whatever its exact shape. */
export function jobIdOf(answer: any): number | undefined {
  const id = jobOf(answer)?.id ?? answer?.jobId;
  return typeof id === 'number' ? id : undefined;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The state and, while it runs, how far it is: "running, 3 of 8 shards done". */
export function describe(job: any): string {
  const p = job.progress;
  let extra = '';
  if (p && typeof p === 'object' && typeof p.done === 'number' && typeof p.total === 'number') {
    if (job.status === 'running' || job.status === 'pending')
      extra = `, ${p.done} of ${p.total} ${p.unit ?? 'steps'} done`;
  } else if (p !== undefined && p !== null && typeof p !== 'object') extra = ` ${p}`;
  return `${job.status}${extra}`;
}

/** What a finished job did, in a few words ("60 rows, 12 series, …"), when the service says. */
export function outcome(job: any): string | undefined {
  return job.status === 'finished' && typeof job.message === 'string' && job.message
    ? job.message
    : undefined;
}

/** Polls until the job is finished (resolves with it) or failed (CliError, exit code 7). */
export async function followJob(api: ApiClient, out: Output, id: number, opts: WaitOptions): Promise<any> {
  const started = Date.now();
  let last = '';
  for (;;) {
    const job = jobOf(await api.get(`/api/v1/jobs/${id}`));
    const seconds = Math.round((Date.now() - started) / 1000);
    const now = describe(job);
    if (now !== last) {
      out.notice(`Job ${id}${job.kind ? ` (${job.kind})` : ''}: ${now} after ${seconds} s`);
      last = now;
    }
    if (TERMINAL.has(job.status)) {
      const did = outcome(job);
      if (did) out.notice(`Job ${id}: ${did}`);
      if (job.status === 'failed') {
        throw new CliError(`Job ${id} failed: ${job.error ?? 'no reason given'}`, ExitCode.jobFailed, {
          detail: `Job ${id} failed: ${job.error ?? 'no reason given'}`,
          ...job,
        });
      }
      return job;
    }
    if (opts.timeout > 0 && seconds >= opts.timeout) {
      throw new CliError(
        `Stopped waiting for job ${id} after ${opts.timeout} s; it is still ${job.status}. Follow it with \`service-cli jobs get ${id} --wait\`.`,
        ExitCode.failure,
      );
    }
    await sleep(opts.interval * 1000);
  }
}
