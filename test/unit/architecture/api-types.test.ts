/**
 * One API contract: the UI's request types are generated from the JSON Schemas the API validates with
 * (scripts/api-types/generate.ts → web/src/lib/api-types.gen.ts). The checked-in file must be what the
 * generator writes now, so a schema change that is not regenerated fails here, and one that is fails the
 * UI's typecheck wherever the UI used the old shape.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GENERATED_FILE, generateApiTypes } from '../../../scripts/api-types/generate';
import { allSchemas } from '../../../schemas/index';

describe('the API types of the UI', () => {
  it('are the ones the schemas give now (run `npm run api-types` after changing a schema)', () => {
    expect(readFileSync(GENERATED_FILE, 'utf8')).toBe(generateApiTypes());
  });

  it("follow a renamed field of a schema, so the UI's use of the old name no longer typechecks", () => {
    const filter = allSchemas.find((s) => s.$id === 'filter') as unknown as {
      properties: Record<string, unknown>;
    };
    const { sortBy, ...rest } = filter.properties;
    const renamed = { ...filter, properties: { ...rest, orderBy: sortBy } };
    const text = generateApiTypes([renamed]);
    expect(text).toMatch(/\n {2}orderBy\?: "Duration" \| "Date" \| "SIN"/);
    expect(text).not.toMatch(/\bsortBy\?:/);
    expect(generateApiTypes()).toMatch(/\n {2}sortBy\?: "Duration" \| "Date" \| "SIN"/);
  });

  it('turns required, optional, nullable, referenced and open objects into their TypeScript shapes', () => {
    const text = generateApiTypes([
      {
        $id: 'thing',
        type: 'object',
        required: ['id'],
        properties: {
          id: { $ref: 'common#/definitions/id' },
          when: { anyOf: [{ type: 'string' }, { type: 'null' }] },
          tags: { type: 'array', items: { type: 'string' } },
          extra: { type: 'object', additionalProperties: { type: 'number' } },
        },
      },
    ]);
    expect(text).toContain(
      'export type Thing = {\n  id: CommonId;\n  when?: string | null;\n  tags?: string[];',
    );
    expect(text).toContain('extra?: {\n    [key: string]: number;\n  };');
  });
});
