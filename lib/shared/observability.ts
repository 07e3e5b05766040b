/**
 * Per-invocation observability of every Lambda handler: the Powertools logger learns the request id,
 * function and cold start; the Powertools tracer (X-Ray, active tracing on AWS) opens the handler's
 * subsegment with a ColdStart annotation and records errors. Off AWS the tracer is disabled
 * (POWERTOOLS_TRACE_ENABLED=false in the local profile, or no Lambda environment at all).
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import middy from '@middy/core';
import { powertoolsLogger, SERVICE_NAME } from './logger';

export const tracer = new Tracer({ serviceName: SERVICE_NAME });

/** Middy middlewares for a handler built with middy (the HTTP functions). */
export function observability<E, R>(): middy.MiddlewareObj<E, R>[] {
  return [
    injectLambdaContext(powertoolsLogger, { resetKeys: true }) as middy.MiddlewareObj<E, R>,
    captureLambdaHandler(tracer, { captureResponse: false }) as middy.MiddlewareObj<E, R>,
  ];
}

/** The same for a plain async handler (workers, schedules, tasks); the handler keeps its own type. */
export function observed<F extends (event: any, context?: any) => Promise<unknown>>(handler: F): F {
  return middy(handler as never).use(observability()) as unknown as F;
}
