import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { config } from '../../lib/config/config';
import { readStatic } from '../../lib/http/static-files';

/** The web UI: static files of web/dist, every unknown path answered with index.html (client-side routing). */
export async function handler(event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> {
  const file = await readStatic(config().webRoot, event.rawPath || '/');
  return {
    statusCode: file.status,
    headers: { 'content-type': file.contentType, 'cache-control': file.cacheControl },
    body: file.body.toString('base64'),
    isBase64Encoded: true,
  };
}
