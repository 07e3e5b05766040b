import { describe, expect, it } from 'vitest';
import { prefersYaml } from '../../../lib/dataviews/accept';

describe('GET /dataviews/{id} content negotiation', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['*/*', false],
    ['application/json', false],
    ['application/yaml', true],
    ['text/yaml', true],
    ['application/x-yaml, */*;q=0.1', true],
    ['application/json, application/yaml', false],
    ['application/yaml, application/json', true],
    ['application/json;q=0.5, application/yaml', true],
    ['application/yaml;q=0.2, */*', false],
    ['application/yaml;q=0', false],
    ['text/*', true],
  ])('with Accept %j answers YAML: %s', (accept, yaml) => {
    expect(prefersYaml(accept)).toBe(yaml);
  });
});
