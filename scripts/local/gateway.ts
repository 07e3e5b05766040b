/** A small HTTP API Gateway (payload 2.0) on 127.0.0.1 that hands requests to the function handlers in this process: used by tests. */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export interface GatewayFunction {
  name: string;
  prefixes: string[];
  /** Paths served despite another function's longer prefix (API Gateway prefers the more specific route). */
  match?: (path: string) => boolean;
  handler: (event: unknown, context: unknown) => Promise<unknown>;
}

export interface Gateway {
  url: string;
  close(): Promise<void>;
}

/** The path as the router reads it; a malformed escape is passed on as sent, for the function to refuse (400). */
function gatewayPath(pathname: string): string {
  try {
    return decodeURI(pathname);
  } catch {
    return pathname;
  }
}

function toEvent(req: http.IncomingMessage, body: Buffer): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(',') : v;
  const query: Record<string, string> = {};
  url.searchParams.forEach((v, k) => {
    query[k] = query[k] === undefined ? v : `${query[k]},${v}`;
  });
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: gatewayPath(url.pathname),
    rawQueryString: url.search.slice(1),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    body: body.length ? body.toString('utf8') : undefined,
    isBase64Encoded: false,
    requestContext: {
      requestId: randomUUID(),
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: 'HTTP/1.1',
        sourceIp: '127.0.0.1',
        userAgent: '',
      },
    } as APIGatewayProxyEventV2['requestContext'],
  } as APIGatewayProxyEventV2;
}

/** Starts the gateway on a free port (or `port`) of 127.0.0.1. */
export async function startGateway(functions: GatewayFunction[], port = 0): Promise<Gateway> {
  const ordered = functions
    .flatMap((f) => f.prefixes.map((p) => ({ prefix: p, f })))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const event = toEvent(req, Buffer.concat(chunks));
      const special = functions.find((f) => f.match?.(event.rawPath));
      const hit = special
        ? { prefix: event.rawPath, f: special }
        : ordered.find(
            (o) => event.rawPath === o.prefix || event.rawPath.startsWith(`${o.prefix}/`) || o.prefix === '/',
          );
      if (!hit) {
        res.writeHead(404, { 'content-type': 'application/problem+json' });
        res.end(
          JSON.stringify({
            type: 'about:blank',
            title: 'Not Found',
            status: 404,
            detail: `No route ${event.rawPath}`,
          }),
        );
        return;
      }
      try {
        const result = (await hit.f.handler(event, {
          awsRequestId: event.requestContext.requestId,
        })) as APIGatewayProxyStructuredResultV2;
        res.writeHead(result.statusCode ?? 200, result.headers as http.OutgoingHttpHeaders);
        res.end(
          result.body
            ? result.isBase64Encoded
              ? Buffer.from(result.body, 'base64')
              : result.body
            : undefined,
        );
      } catch (e) {
        res.writeHead(502, { 'content-type': 'application/problem+json' });
        res.end(
          JSON.stringify({
            type: 'about:blank',
            title: 'Bad Gateway',
            status: 502,
            detail: (e as Error).message,
          }),
        );
      }
    });
  });
  // Longer than clients' idle keep-alive, so a reused connection is never closed under a request.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const { port: bound } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
