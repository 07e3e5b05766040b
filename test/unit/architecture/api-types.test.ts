/**
 * One API contract: the UI's types are generated from the JSON Schemas the API validates requests with and
 * documents its answers with (scripts/api-types/generate.ts → web/src/lib/api-types.gen.ts). The checked-in file must be what the
 * generator writes now, so a schema change that is not regenerated fails here, and one that is fails the
 * UI's typecheck wherever the UI used the old shape.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiSchemas, GENERATED_FILE, generateApiTypes } from '../../../scripts/api-types/generate';
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
    const text = generateApiTypes(apiSchemas.map((s) => (s === filter ? renamed : s)));
    expect(text).toMatch(/\n {2}orderBy\?: "Duration" \| "Date" \| "SIN"/);
    expect(text).not.toMatch(/\bsortBy\?:/);
    expect(generateApiTypes()).toMatch(/\n {2}sortBy\?: "Duration" \| "Date" \| "SIN"/);
  });

  it('turns required, optional, nullable, referenced and open objects into their TypeScript shapes', () => {
    const common = allSchemas.find((s) => s.$id === 'common')!;
    const text = generateApiTypes([
      common,
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

  it('names the answers by their $id, so a renamed answer field changes the type the UI reads', () => {
    const text = generateApiTypes();
    expect(text).toMatch(/\nexport type SubscriptionView = \{\n {2}id: number;/);
    expect(text).toMatch(/\nexport type FilterAnswerAnomaly = \{[\s\S]*?\n {2}feedback\?: null \| \{/);
  });

  it('resolves a $ref into a group of definitions, and keeps the properties of an object with allOf', () => {
    const text = generateApiTypes([
      {
        $id: 'thing',
        definitions: {
          fields: { size: { type: 'integer' }, label: { enum: ['a', 'b'] } },
          create: {
            type: 'object',
            required: ['size'],
            properties: { size: { $ref: 'thing#/definitions/fields/size' } },
            // An if/then (as connector-create has) adds no shape.
            allOf: [JSON.parse('{"if": {"required": ["size"]}, "then": {"required": ["label"]}}')],
          },
        },
      },
    ]);
    expect(text).toContain('export type ThingFieldsSize = number;');
    expect(text).toContain('export type ThingFieldsLabel = "a" | "b";');
    expect(text).toContain('export type ThingCreate = {\n  size: ThingFieldsSize;\n};');
  });

  it('refuses a $ref to no schema and two schemas of one type name', () => {
    expect(() =>
      generateApiTypes([{ $id: 'a', type: 'object', properties: { b: { $ref: 'nowhere' } } }]),
    ).toThrow(/\$ref to no schema: Nowhere/);
    expect(() =>
      generateApiTypes([
        { $id: 'job-info', type: 'object' },
        { $id: 'job', definitions: { info: { type: 'object' } } },
      ]),
    ).toThrow(/two schemas give the type name JobInfo/);
  });
});
