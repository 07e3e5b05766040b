import { describe, expect, it } from 'vitest';
import { routes } from '../../../functions/http/anomalies';
import { buildOpenApi } from '../../../lib/http/openapi';

describe('the OpenAPI document of running filters', () => {
  const doc = buildOpenApi(routes, { version: 'test' }) as any;
  it('describes the answer with measure, types and members, and the body with measures and mergeEvents', () => {
    const answer =
      doc.paths['/api/v1/anomalies/query'].post.responses['200'].content['application/json'].schema;
    expect(answer).toEqual({ $ref: '#/components/schemas/filter-answer' });
    const anomaly = doc.components.schemas['filter-answer-anomaly'];
    expect(anomaly.properties.measure.enum).toEqual(['value', 'count', 'ratio']);
    expect(anomaly.properties.types.type).toBe('array');
    expect(anomaly.properties.members.items).toEqual({ $ref: '#/components/schemas/filter-answer-anomaly' });
    const filter = doc.components.schemas.filter;
    expect(filter.properties.measures.default).toBe('value;count;ratio');
    expect(filter.properties.mergeEvents.default).toBe(false);
    expect(doc.paths['/api/v1/anomalies/query'].post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/filter',
    });
  });
});
