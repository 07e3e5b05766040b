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

function describe(job: any): string {
  const extra = job.progress
    ? ` ${typeof job.progress === 'object' ? JSON.stringify(job.progress) : job.progress}`
    : '';
  return `${job.status}${extra}`;
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
