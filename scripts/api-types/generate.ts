/**
 * The API's shapes as TypeScript types for the web UI, generated from the JSON Schemas the API validates
 * requests with (schemas/*.json, registered by lib/shared/validation.ts) and documents its answers with
 * (schemas/responses/*.json and lib/http/response-schemas.ts, checked against real answers by
 * test/deploy/openapi-answers.test.ts):
 * `npm run api-types` writes web/src/lib/api-types.gen.ts, and test/unit/architecture/api-types.test.ts
 * fails when that file is stale. A schema named `filter` gives `Filter`; its definition `optionalDate`
 * gives `FilterOptionalDate`; a definition with an `$id` of its own is also named by that id.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { inlineResponseSchemas } from '../../lib/http/response-schemas';
import { allSchemas } from '../../schemas/index';
import { responseSchemas } from '../../schemas/responses/index';

type Schema = Record<string, unknown>;

export const GENERATED_FILE = path.resolve(import.meta.dirname, '../../web/src/lib/api-types.gen.ts');

/**
 * Request schemas, then every answer schema (each answer `$defs` entry has an `$id` of its own, and the
 * answers too small for a file are named by their key in lib/http/response-schemas.ts).
 */
export const apiSchemas: readonly Schema[] = [
  ...allSchemas,
  ...responseSchemas,
  ...Object.entries(inlineResponseSchemas).map(([$id, schema]) => ({ $id, ...schema })),
];

const pascal = (s: string) =>
  s
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1))
    .join('');

/** The type name of `#/definitions/<a>/<b>…` in schema `id` (or of the schema itself). */
const typeName = (id: string, ...pointer: string[]) => pascal(id) + pointer.map(pascal).join('');

/** Keywords that make a schema a shape; a definition without any is a group of definitions. */
const SHAPE = ['type', 'properties', '$ref', 'enum', 'const', 'anyOf', 'oneOf', 'allOf', 'items'];
const isGroup = (s: Schema) =>
  !SHAPE.some((k) => k in s) &&
  Object.keys(s).length > 0 &&
  Object.values(s).every((v) => v !== null && typeof v === 'object' && !Array.isArray(v));

function refName(ref: string, currentId: string): string {
  const m = /^([^#]*)#\/(?:definitions|\$defs)\/(.+)$/.exec(ref);
  if (m) return typeName(m[1] || currentId, ...m[2].split('/'));
  if (/^[^#]+#?$/.test(ref)) return typeName(ref.replace(/#$/, ''));
  throw new Error(`schema ${currentId}: cannot name the $ref ${ref}`);
}

const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k));

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  return unique.length === 0 ? 'never' : unique.join(' | ');
}

/** An intersection without the parts that add nothing (`unknown`, as an if/then gives). */
function intersection(parts: string[]): string {
  const kept = parts.filter((p) => p !== 'unknown');
  return kept.length === 0 ? 'unknown' : kept.join(' & ');
}

interface Ctx {
  id: string;
  refs: Set<string>;
}

/** The TypeScript type of `schema` (validation keywords that do not change the shape are ignored). */
function typeOf(schema: Schema | boolean, ctx: Ctx, indent: string): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (typeof schema.$ref === 'string') {
    const name = refName(schema.$ref, ctx.id);
    ctx.refs.add(name);
    return name;
  }
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map((v) => JSON.stringify(v)));
  for (const k of ['oneOf', 'anyOf'] as const)
    if (Array.isArray(schema[k])) return union((schema[k] as Schema[]).map((s) => typeOf(s, ctx, indent)));
  const all = Array.isArray(schema.allOf)
    ? (schema.allOf as Schema[]).map((s) => typeOf(s, ctx, indent))
    : [];
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (types.length === 0 && schema.properties) types.push('object');
  if (types.length === 0) return intersection(all);
  const own = union(types.map((t) => primitive(String(t), schema, ctx, indent)));
  return all.length ? intersection([own, ...all]) : own;
}

function primitive(t: string, schema: Schema, ctx: Ctx, indent: string): string {
  switch (t) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      const item = schema.items ? typeOf(schema.items as Schema, ctx, indent) : 'unknown';
      return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    default:
      return objectType(schema, ctx, indent);
  }
}

function objectType(schema: Schema, ctx: Ctx, indent: string): string {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const inner = `${indent}  `;
  const lines = Object.entries(props).map(([k, s]) => {
    const doc =
      typeof s.description === 'string' ? `${inner}/** ${s.description.replace(/\*\//g, '*\\/')} */\n` : '';
    return `${doc}${inner}${key(k)}${required.has(k) ? '' : '?'}: ${typeOf(s, ctx, inner)};`;
  });
  const extra = schema.additionalProperties;
  if (extra && typeof extra === 'object')
    lines.push(`${inner}[key: string]: ${typeOf(extra as Schema, ctx, inner)};`);
  else if (extra === true || (extra === undefined && lines.length === 0))
    lines.push(`${inner}[key: string]: unknown;`);
  return lines.length ? `{\n${lines.join('\n')}\n${indent}}` : 'Record<string, never>';
}

/** `export type` lines of the definitions of one schema (groups of definitions flattened into names). */
function definitions(defs: Record<string, Schema>, ctx: Ctx, pointer: string[], out: Map<string, string>) {
  for (const [name, def] of Object.entries(defs)) {
    const at = [...pointer, name];
    if (isGroup(def)) {
      definitions(def as Record<string, Schema>, ctx, at, out);
      continue;
    }
    const own = typeName(ctx.id, ...at);
    declare(out, own, typeOf(def, ctx, ''));
    // A definition with an $id of its own is referred to by that id.
    const alias = typeof def.$id === 'string' ? typeName(def.$id) : undefined;
    if (alias && alias !== own) declare(out, alias, own);
  }
}

function declare(out: Map<string, string>, name: string, type: string) {
  if (out.has(name)) throw new Error(`two schemas give the type name ${name}`);
  out.set(name, type);
}

/** The generated module's text; throws when two schemas give one name or a $ref names no generated type. */
export function generateApiTypes(schemas: readonly Schema[] = apiSchemas): string {
  const out = new Map<string, string>();
  const refs = new Set<string>();
  for (const schema of [...schemas].sort((a, b) => String(a.$id).localeCompare(String(b.$id)))) {
    const ctx: Ctx = { id: String(schema.$id), refs };
    definitions((schema.definitions ?? schema.$defs ?? {}) as Record<string, Schema>, ctx, [], out);
    if (SHAPE.some((k) => k in schema)) declare(out, typeName(ctx.id), typeOf(schema, ctx, ''));
  }
  const missing = [...refs].filter((r) => !out.has(r));
  if (missing.length) throw new Error(`$ref to no schema: ${missing.join(', ')}`);
  const head = [
    '// Generated by scripts/api-types/generate.ts from schemas/*.json and schemas/responses/*.json',
    '// (`npm run api-types`): do not edit. The bodies the API validates and answers; the UI derives its',
    '// types from these, so a renamed field fails its typecheck.',
    '',
  ];
  const body = [...out].map(([name, type]) => `export type ${name} = ${type};\n`);
  return `${[...head, ...body].join('\n').trimEnd()}\n`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  writeFileSync(GENERATED_FILE, generateApiTypes());
  console.log(`wrote ${path.relative(process.cwd(), GENERATED_FILE)}`);
}
