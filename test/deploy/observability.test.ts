/**
 * Powertools on the service: log lines with the request id and cold start of the invocation and the
 * error's cause chain; EMF metrics of job events (namespace, dimensions, values); a plain handler wrapped
 * with `observed` keeps its answer.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { logger, setLogLevel } from '../../lib/shared/logger';
import { loadConfig } from '../../lib/config/config';
import { configureMetrics, recordJob, setMetricsEnabled } from '../../lib/shared/metrics';
import { observed } from '../../lib/shared/observability';

/** Captures what Powertools writes (it logs and prints EMF through the console). */
function capture() {
  const lines: string[] = [];
  const grab = (...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  };
  const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((m) =>
    vi.spyOn(console, m).mockImplementation(grab),
  );
  const write = (chunk: unknown) => {
    lines.push(String(chunk));
    return true;
  };
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(write);
  const err = vi.spyOn(process.stderr, 'write').mockImplementation(write);
  return {
    json: () =>
      lines
        .flatMap((l) => l.split('\n'))
        .filter((l) => l.trim().startsWith('{'))
        .map((l) => JSON.parse(l)),
    restore: () => {
      for (const s of spies) s.mockRestore();
      out.mockRestore();
      err.mockRestore();
    },
  };
}

const context = {
  functionName: 'anomaly-monitor-prod-loadWorker',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123:function:anomaly-monitor-prod-loadWorker',
  memoryLimitInMB: '3008',
  awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
  getRemainingTimeInMillis: () => 1000,
};

describe('Powertools logger', () => {
  let cap: ReturnType<typeof capture>;
  beforeEach(() => {
    setLogLevel('info');
    cap = capture();
  });
  afterEach(() => {
    cap.restore();
    setLogLevel('error');
  });

  it('writes the request id and cold start of the invocation, and the cause chain of an error', async () => {
    const handler = observed(async (_event: unknown, _context?: unknown) => {
      const root = new Error('connect ECONNREFUSED 10.0.0.5:5432');
      logger.child({ jobId: 7 }).error('job failed', { error: new Error('load failed', { cause: root }) });
      return { ok: true };
    });
    expect(await handler({}, context)).toEqual({ ok: true });
    const [line] = cap.json().filter((l) => l.message === 'job failed');
    expect(line).toMatchObject({
      level: 'ERROR',
      service: 'anomaly-monitor',
      jobId: 7,
      function_request_id: context.awsRequestId,
      function_name: context.functionName,
    });
    expect(typeof line.cold_start).toBe('boolean');
    expect(line.error.message).toBe('load failed');
    expect(line.error.cause.message).toBe('connect ECONNREFUSED 10.0.0.5:5432');
  });

  it('respects the level', () => {
    setLogLevel('warn');
    logger.info('hidden');
    logger.warn('shown');
    expect(cap.json().map((l) => l.message)).toEqual(['shown']);
  });
});

describe('EMF metrics of jobs', () => {
  let cap: ReturnType<typeof capture>;
  beforeEach(() => {
    cap = capture();
  });
  afterEach(() => {
    cap.restore();
    setMetricsEnabled(undefined);
  });

  const metrics = () =>
    cap
      .json()
      .filter((l) => l._aws)
      .map((l) => {
        const [def] = l._aws.CloudWatchMetrics;
        const name = def.Metrics[0].Name as string;
        return { namespace: def.Namespace, name, dims: def.Dimensions[0], value: l[name], kind: l.kind };
      });

  it('writes jobs started, finished (with rows, series-days, anomalies, duration) and failed by kind', () => {
    setMetricsEnabled(true);
    recordJob('load', 'started');
    recordJob('load', 'finished', { rows: 1200, ms: 3400 });
    recordJob('process', 'finished', { series: 100, days: 30, anomalies: 4, ms: 900, detectMs: 120 });
    recordJob('process', 'failed');
    const got = metrics();
    expect(got.every((m) => m.namespace === 'AnomalyMonitor')).toBe(true);
    const find = (name: string, kind?: string) => got.find((m) => m.name === name && m.kind === kind);
    expect(find('JobsStarted', 'load')).toMatchObject({ value: 1, dims: ['service', 'kind'] });
    expect(find('LoadRows', 'load')?.value).toBe(1200);
    expect(find('JobDuration', 'load')?.value).toBe(3400);
    expect(find('DetectionSeriesDays', 'process')?.value).toBe(3000);
    expect(find('Anomalies', 'process')?.value).toBe(4);
    expect(find('JobsFailed', 'process')?.value).toBe(1);
    // The same failure without the kind: what the FailedJobs alarm watches.
    expect(find('JobsFailed')).toMatchObject({ value: 1, dims: ['service'] });
  });

  it('writes nothing off AWS', () => {
    setMetricsEnabled(undefined);
    configureMetrics(
      loadConfig({ SERVICE_STAGE: 'aws', AWS_LAMBDA_FUNCTION_NAME: 'f', IS_OFFLINE: 'true' }).metrics,
    );
    recordJob('load', 'failed');
    configureMetrics(loadConfig({ SERVICE_STAGE: 'local' }).metrics);
    recordJob('load', 'failed');
    expect(metrics()).toEqual([]);
  });

  it('writes them inside a Lambda function on AWS, in the namespace the config names', () => {
    setMetricsEnabled(undefined);
    const env = { SERVICE_STAGE: 'aws', AWS_LAMBDA_FUNCTION_NAME: 'anomaly-monitor-prod-loadWorker' };
    configureMetrics(loadConfig({ ...env, POWERTOOLS_METRICS_NAMESPACE: 'AnomalyMonitorStaging' }).metrics);
    recordJob('load', 'failed');
    configureMetrics(loadConfig(env).metrics);
    recordJob('process', 'failed');
    configureMetrics({ enabled: false, namespace: 'AnomalyMonitor' });
    const got = metrics().filter((m) => m.kind);
    expect(got.map((m) => [m.namespace, m.kind])).toEqual([
      ['AnomalyMonitorStaging', 'load'],
      ['AnomalyMonitor', 'process'],
    ]);
  });
});
