/** Drives the schedule functions locally, as EventBridge does on AWS: each is invoked through serverless-offline's Lambda endpoint. */
import { invokeLocalLambda } from '../../lib/queue/local';

export interface ScheduledFunction {
  /** serverless-offline's function name (service-stage-function). */
  functionName: string;
  everyMs: number;
}

/** Starts the timers; the returned function stops them. */
export function startScheduleTimer(endpoint: string, functions: ScheduledFunction[]): () => void {
  const timers = functions.map((f) =>
    setInterval(() => {
      invokeLocalLambda(endpoint, f.functionName, {
        source: 'local.schedule',
        'detail-type': 'Scheduled Event',
      }).catch((e) => console.error(`schedule ${f.functionName} not invoked: ${(e as Error).message}`));
    }, f.everyMs),
  );
  return () => {
    for (const t of timers) clearInterval(t);
  };
}
