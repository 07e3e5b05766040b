/** The middlewares of the HTTP stack, one concern each; they share the per-request state through `state()`. */
import { randomUUID } from 'node:crypto';
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '../config/config';
import type { Database } from '../db/database';
import { authenticate } from '../identity/authenticate';
import type { TokenService } from '../identity/tokens';
import { type Caller, requireAdmin, requireProcess, requireRead, requireWrite } from '../identity/caller';
import { AppError, TooManyRequestsError, ValidationError } from '../shared/errors';
import { type Logger, logger } from '../shared/logger';
import { validate } from '../shared/validation';
import { checkJsonBody, checkQuery, checkText } from './input-guard';
import { clientAddress } from './edge-guard';
import { HttpStatusError, type Problem, problemFor } from './problem';
import { compileRoutes, matchRoute, type Route } from './router';

export type Event = APIGatewayProxyEventV2;
export type Result = APIGatewayProxyStructuredResultV2;

export interface HttpState {
  requestId: string;
  method: string;
  path: string;
  started: number;
  log: Logger;
  headers: Record<string, string | undefined>;
  rawBody?: string;
  route?: Route;
  params: Record<string, string>;
  /** A path parameter that could not be decoded or holds a refused character: thrown after authentication (401 before 400). */
  paramError?: Error;
  caller: Caller;
  body?: unknown;
  /** The client's address: the viewer's behind the distribution, else API Gateway's sourceIp. */
  sourceIp?: string;
}

type Req = Request<Event, Result, Error>;

const anonymous: Caller = {
  userId: 0,
  email: '',
  role: 'data-user',
  permissions: new Set(),
  via: 'token',
  dataViews: new Set(),
};
const MAX_BODY = 1024 * 1024;

const states = new WeakMap<object, HttpState>();

/** The per-request state, keyed by the event object that both middlewares and the handler receive. */
export function state(request: Req | { event: Event }): HttpState {
  return states.get(request.event) as HttpState;
}

function lowerHeaders(h: Event['headers'] | undefined): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(h ?? {})) out[k.toLowerCase()] = v;
  return out;
}

export function problemResult(p: Problem, extra: Record<string, string> = {}): Result {
  return {
    statusCode: p.status,
    headers: { 'content-type': 'application/problem+json', 'x-request-id': p.requestId, ...extra },
    body: JSON.stringify(p),
  };
}

/** Request id, routing and the closing log line. */
export function routing(routes: Route[]): MiddlewareObj<Event, Result> {
  const table = compileRoutes(routes);
  return {
    before: (request) => {
      const event = request.event;
      const lambdaId = (request.context as { awsRequestId?: string } | undefined)?.awsRequestId;
      const requestId = lambdaId || event.requestContext?.requestId || randomUUID();
      const method = (event.requestContext?.http?.method ?? 'GET').toUpperCase();
      const path = event.rawPath ?? '/';
      const s: HttpState = {
        requestId,
        method,
        path,
        started: Date.now(),
        log: logger.child({ requestId, method, path }),
        headers: lowerHeaders(event.headers),
        rawBody:
          event.body && event.isBase64Encoded
            ? Buffer.from(event.body, 'base64').toString('utf8')
            : event.body,
        params: {},
        caller: anonymous,
      };
      states.set(event, s);
      const match = matchRoute(table, method, path);
      if (match.kind === 'not-found') throw new HttpStatusError(404, `No endpoint ${method} ${path}.`);
      if (match.kind === 'method-not-allowed') {
        throw new HttpStatusError(405, `${method} is not allowed on ${path}.`, {
          allow: match.allowed.join(', '),
        });
      }
      s.route = match.route;
      s.params = match.params;
      s.paramError = match.paramError;
    },
    after: (request) => {
      const s = state(request);
      s.log.info('request', { status: request.response?.statusCode, ms: Date.now() - s.started });
    },
  };
}

/** Any error becomes problem+json; unknown errors become a generic 500 whose detail goes to the log only. */
export function problemErrors(): MiddlewareObj<Event, Result> {
  return {
    onError: (request) => {
      const s = state(request) as HttpState | undefined;
      const requestId = s?.requestId ?? randomUUID();
      const error = request.error;
      const p = problemFor(error, requestId);
      const extra =
        error instanceof HttpStatusError
          ? error.headers
          : error instanceof TooManyRequestsError
            ? { 'retry-after': String(error.retryAfterSeconds) }
            : {};
      const log = s?.log ?? logger.child({ requestId });
      if (p.status >= 500) log.error('request failed', { error });
      log.info('request', { status: p.status, ms: s ? Date.now() - s.started : undefined });
      request.response = problemResult(p, extra);
    },
  };
}

/** What authentication needs of the container, handed in by the function (never fetched here). */
export type AuthContainer = () => Promise<{
  db: Database;
  tokens: TokenService;
  config?: { edge?: { originSecret?: string } };
}>;

/**
 * Before authentication, on every route (public ones too: sign-in is the one to protect): behind the
 * distribution, a request without its secret is a 403 and the client's address is the viewer's.
 */
export function edgeGuard(container: AuthContainer): MiddlewareObj<Event, Result> {
  return {
    before: async (request) => {
      const s = state(request);
      const sourceIp = request.event.requestContext?.http?.sourceIp;
      // The secret is in the environment, or in Secrets Manager when only its id is (read with the
      // container's runtime secrets); without either (local stages) no request needs the container here.
      const edge = config().edge;
      const secret =
        edge?.originSecret ??
        (edge?.originSecretId ? (await container()).config?.edge?.originSecret : undefined);
      s.sourceIp = clientAddress(s.headers, sourceIp, secret);
    },
  };
}

/** Bearer token or API key to a Caller (401), then the route's access level (403) before any input is read. */
export function authentication(container: AuthContainer): MiddlewareObj<Event, Result> {
  return {
    before: async (request) => {
      const s = state(request);
      const access = s.route!.access;
      if (access === 'public') return;
      const c = await container();
      const caller = await authenticate({ db: c.db, tokens: c.tokens }, s.headers);
      if (access === 'admin') requireAdmin(caller);
      else if (access === 'read') requireRead(caller);
      else if (access === 'write') requireWrite(caller);
      else if (access === 'process') requireProcess(caller);
      s.caller = caller;
      s.log = s.log.child({ caller: caller.email });
    },
  };
}

/** Path parameters (decoded by the router) and query values: a malformed escape, a NUL or an unpaired surrogate is the caller's 400. */
export function inputGuard(): MiddlewareObj<Event, Result> {
  return {
    before: (request) => {
      const s = state(request);
      if (s.paramError) throw s.paramError;
      checkQuery(request.event.queryStringParameters ?? {});
    },
  };
}

/** JSON (or, where the route allows, YAML text) bodies; malformed JSON, NUL characters, unsafe numbers and out-of-range ids are the caller's 400. */
export function bodyParser(): MiddlewareObj<Event, Result> {
  return {
    before: (request) => {
      const s = state(request);
      const raw = s.rawBody;
      if (raw == null || raw === '') return;
      if (raw.length > MAX_BODY) throw new HttpStatusError(413, 'The request body is larger than 1 MiB.');
      const type = (s.headers['content-type'] ?? 'application/json').split(';')[0].trim().toLowerCase();
      if (/^(application|text)\/(x-)?yaml$/.test(type)) {
        if (!s.route!.yaml)
          throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'This endpoint takes application/json only.');
        checkText(raw, 'body');
        s.body = raw;
        return;
      }
      if (type !== 'application/json' && !type.endsWith('+json') && type !== 'text/plain') {
        throw new AppError(
          'UNSUPPORTED_MEDIA_TYPE',
          `Content-Type ${type} is not supported; send application/json.`,
        );
      }
      try {
        s.body = JSON.parse(raw);
      } catch (e) {
        throw ValidationError.field('', `the body is not valid JSON (${(e as Error).message})`);
      }
      checkJsonBody(s.body);
    },
  };
}

/** ajv over the route's body schema; YAML text is validated by the use case after parsing. */
export function bodyValidation(): MiddlewareObj<Event, Result> {
  return {
    before: (request) => {
      const s = state(request);
      const schema = s.route!.body;
      if (schema && typeof s.body !== 'string') s.body = validate(schema, s.body ?? {});
    },
  };
}
