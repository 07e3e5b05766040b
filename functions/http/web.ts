import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '../../lib/config/config';
import { plainProblem } from '../../lib/http/problem';
import { securityHeaders, UI_CSP } from '../../lib/http/security-headers';
import { decodeWebPath, readStatic } from '../../lib/http/static-files';

function problemAnswer(status: number, detail: string, requestId: string): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/problem+json', ...securityHeaders({ hsts: false }) },
    body: JSON.stringify(plainProblem(status, detail, requestId)),
  };
}

/** The web UI: static files of web/dist, every unknown path answered with index.html (client-side routing). */
export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const path = event.rawPath || '/';
  const requestId = event.requestContext?.requestId ?? '';
  if (decodeWebPath(path) === undefined) {
    return problemAnswer(400, 'The path has a malformed percent-escape.', requestId);
  }
  if (path === '/api' || path.startsWith('/api/')) {
    return problemAnswer(404, `No endpoint GET ${path}.`, requestId);
  }
  const file = await readStatic(config().webRoot, path);
  return {
    statusCode: file.status,
    headers: {
      'content-type': file.contentType,
      'cache-control': file.cacheControl,
      // Local stage only (AWS serves the UI from CloudFront with the same headers): no HSTS on http://.
      ...securityHeaders({ hsts: false, csp: UI_CSP }),
    },
    body: file.body.toString('base64'),
    isBase64Encoded: true,
  };
}
