/**
 * What the local event source's invocations would be billed on AWS: each invocation's duration, rounded up
 * to the millisecond as Lambda bills it, times the memory the function is configured with in
 * serverless.yml, and one request; each invocation the event source hands on stands for one SQS message
 * (sent, received and deleted: three SQS requests), except the schedule's, which EventBridge sends. `npm start` keeps the totals in
 * `DATA_DIR/usage.json`; the benches read them before and after a cycle (docs/deploy.md, "What it costs").
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

export interface FunctionUsage {
  /** Invocations (Lambda requests; each one SQS message). */
  invocations: number;
  /** Billed milliseconds, summed. */
  billedMs: number;
  /** Configured memory in MB. */
  memoryMb: number;
  /** Gigabyte-seconds: billed seconds × memory in GB (1 GB = 1,024 MB, as AWS counts). */
  gbSeconds: number;
}

export type Usage = Record<string, FunctionUsage>;

/** SQS requests per message delivered through an event source mapping: send, receive, delete. */
export const SQS_REQUESTS_PER_MESSAGE = 3;

/** The memory of each function of serverless.yml, by its local name (service-stage-function). */
export function configuredMemory(serverlessYml: string, stage = 'local'): Record<string, number> {
  const doc = parse(readFileSync(serverlessYml, 'utf8')) as {
    service: string;
    provider?: { memorySize?: number };
    functions?: Record<string, { memorySize?: number }>;
  };
  const fallback = doc.provider?.memorySize ?? 1024;
  const out: Record<string, number> = {};
  for (const [name, fn] of Object.entries(doc.functions ?? {}))
    out[`${doc.service}-${stage}-${name}`] = fn.memorySize ?? fallback;
  return out;
}

/** A meter of invocations; `record` is called once per finished invocation. */
export function usageMeter(memoryOf: Record<string, number>, fallbackMb = 1024) {
  const usage: Usage = {};
  return {
    record(fn: string, ms: number): void {
      const memoryMb = memoryOf[fn] ?? fallbackMb;
      const u = (usage[fn] ??= { invocations: 0, billedMs: 0, memoryMb, gbSeconds: 0 });
      const billed = Math.max(1, Math.ceil(ms));
      u.invocations += 1;
      u.billedMs += billed;
      u.gbSeconds += (billed / 1000) * (memoryMb / 1024);
    },
    snapshot(): Usage {
      return structuredClone(usage);
    },
  };
}

/** What was used between two snapshots, per function (functions not invoked in between are left out). */
export function usageBetween(before: Usage, after: Usage): Usage {
  const out: Usage = {};
  for (const [fn, a] of Object.entries(after)) {
    const b = before[fn];
    const invocations = a.invocations - (b?.invocations ?? 0);
    if (invocations <= 0) continue;
    out[fn] = {
      invocations,
      billedMs: a.billedMs - (b?.billedMs ?? 0),
      memoryMb: a.memoryMb,
      gbSeconds: a.gbSeconds - (b?.gbSeconds ?? 0),
    };
  }
  return out;
}

/** Sums of a usage: GB-s, Lambda requests and SQS requests. */
export function usageTotals(usage: Usage): { gbSeconds: number; requests: number; sqsRequests: number } {
  let gbSeconds = 0;
  let requests = 0;
  let messages = 0;
  for (const [fn, u] of Object.entries(usage)) {
    gbSeconds += u.gbSeconds;
    requests += u.invocations;
    // The schedule's invocations come from EventBridge, not from a queue.
    if (!fn.endsWith('-cronLoads')) messages += u.invocations;
  }
  return { gbSeconds, requests, sqsRequests: messages * SQS_REQUESTS_PER_MESSAGE };
}
