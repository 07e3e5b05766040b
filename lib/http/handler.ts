/** The one Middy stack of every HTTP function: routing and request id, problem+json errors, authentication, body parsing, validation. */
import middy from '@middy/core';
import {
  type AuthContainer,
  authentication,
  bodyParser,
  edgeGuard,
  bodyValidation,
  type Event,
  problemErrors,
  inputGuard,
  type Result,
  routing,
  state,
} from './middlewares';
import { config } from '../config/config';
import { requestDeadline } from './deadline';
import { assertFitsResponse } from './response-size';
import { HttpResult, type Route } from './router';
import { securityHeadersMiddleware } from './security-headers';
import { observability } from '../shared/observability';

function toResult(value: unknown, requestId: string): Result {
  const r = value instanceof HttpResult ? value : new HttpResult(200, value);
  const headers: Record<string, string> = { 'x-request-id': requestId, ...r.headers };
  if (r.body === undefined) return { statusCode: r.status, headers };
  if (typeof r.body === 'string' && headers['content-type'])
    return { statusCode: r.status, headers, body: r.body };
  headers['content-type'] ??= 'application/json';
  return { statusCode: r.status, headers, body: JSON.stringify(r.body) };
}

/** Builds the Lambda handler of one HTTP function from its route table; `container` is handed in by the function. */
export function httpHandler(routes: Route[], container: AuthContainer) {
  return middy<Event, Result>()
    .use(securityHeadersMiddleware<Event, Result>(() => config().stage === 'aws'))
    .use(observability<Event, Result>())
    .use(routing(routes))
    .use(problemErrors())
    .use(edgeGuard(container))
    .use(authentication(container))
    .use(inputGuard())
    .use(bodyParser())
    .use(bodyValidation())
    .handler(async (event, context) => {
      const s = state({ event });
      const deadline = requestDeadline(context);
      const value = await s
        .route!.handle({
          method: s.method,
          path: s.path,
          params: s.params,
          query: { ...(event.queryStringParameters ?? {}) },
          headers: s.headers,
          body: s.body,
          rawBody: s.rawBody,
          caller: s.caller,
          requestId: s.requestId,
          sourceIp: s.sourceIp,
          signal: deadline.signal,
        })
        .finally(deadline.clear);
      const result = toResult(value, s.requestId);
      assertFitsResponse(result);
      return result;
    });
}
