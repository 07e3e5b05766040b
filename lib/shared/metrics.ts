/**
 * Service metrics as CloudWatch embedded metric format (EMF) lines, through Powertools Metrics, namespace
 * AnomalyMonitor: jobs started/finished/failed by kind, job durations, load rows, detection series-days
 * and anomalies. Each data point is written at once (single metric), so nothing waits for a flush at the
 * end of an invocation. Written only where the composition root turns them on from the config (on AWS: SERVICE_STAGE=aws
 * inside Lambda, not serverless-offline); until then, and elsewhere, a no-op.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { SERVICE_NAME } from './logger';

export const METRICS_NAMESPACE = 'AnomalyMonitor';

let metrics: Metrics | undefined;
let on = false;
let namespace = METRICS_NAMESPACE;
let enabledOverride: boolean | undefined;

const enabled = () => enabledOverride ?? on;

function instance(): Metrics {
  metrics ??= new Metrics({ namespace, serviceName: SERVICE_NAME });
  return metrics;
}

/** Set once by the composition root from the config: whether metrics are written, and their namespace. */
export function configureMetrics(options: { enabled: boolean; namespace: string }): void {
  on = options.enabled;
  if (options.namespace !== namespace) metrics = undefined;
  namespace = options.namespace;
}

/** Tests switch metrics on (true), off (false) or back to the configured choice (undefined). */
export function setMetricsEnabled(value: boolean | undefined): void {
  enabledOverride = value;
}

function emit(
  name: string,
  unit: (typeof MetricUnit)[keyof typeof MetricUnit],
  value: number,
  dimensions: Record<string, string> = {},
): void {
  if (!enabled() || !Number.isFinite(value)) return;
  const m = instance().singleMetric();
  for (const [k, v] of Object.entries(dimensions)) m.addDimension(k, v);
  m.addMetric(name, unit, value);
}

/**
 * One job event. The failed count is also written without the kind, so one CloudWatch alarm watches all
 * kinds (deploy/alarms.yml).
 */
export function recordJob(
  kind: string,
  event: 'started' | 'finished' | 'failed',
  detail: Record<string, unknown> = {},
) {
  const name = { started: 'JobsStarted', finished: 'JobsFinished', failed: 'JobsFailed' }[event];
  emit(name, MetricUnit.Count, 1, { kind });
  if (event === 'failed') emit('JobsFailed', MetricUnit.Count, 1);
  if (event !== 'finished') return;
  const num = (k: string) => (typeof detail[k] === 'number' ? (detail[k] as number) : undefined);
  const ms = num('ms');
  if (ms !== undefined) emit('JobDuration', MetricUnit.Milliseconds, ms, { kind });
  const rows = num('rows');
  if (rows !== undefined) emit('LoadRows', MetricUnit.Count, rows, { kind });
  const series = num('series');
  const days = num('days');
  if (series !== undefined && days !== undefined && num('anomalies') !== undefined) {
    emit('DetectionSeriesDays', MetricUnit.Count, series * days, { kind });
    emit('Anomalies', MetricUnit.Count, num('anomalies') as number, { kind });
    for (const phase of ['readMs', 'detectMs', 'writeMs'] as const) {
      const v = num(phase);
      if (v !== undefined)
        emit(`Detection${phase[0].toUpperCase()}${phase.slice(1)}`, MetricUnit.Milliseconds, v);
    }
  }
}
