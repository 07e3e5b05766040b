/** Reads a definition from a request body and validates it against the service database (the connector must exist). */
import type { Database } from '../db/database';
import { type DataViewDefinition, parseDefinitionBody, validateDefinition } from './definition/index';
import { isRecord } from './definition/util';
import { connectorExists } from '../connectors/repository';

/** The connector name the document refers to, when it has one. */
function connectorNameOf(doc: Record<string, unknown>): string | undefined {
  const source = doc.source;
  return isRecord(source) && typeof source.connector === 'string' ? source.connector : undefined;
}

/** Validates an already parsed document; throws ValidationError listing every field at fault. */
export async function checkDefinition(db: Database, doc: unknown): Promise<DataViewDefinition> {
  const name = isRecord(doc) ? connectorNameOf(doc) : undefined;
  const exists = name !== undefined && name !== '' && (await connectorExists(db, name));
  return validateDefinition(doc, { connectorExists: (n) => exists && n === name });
}

/** A JSON object or YAML text to a valid definition; YAML syntax errors name line and column. */
export async function definitionFromBody(db: Database, body: unknown): Promise<DataViewDefinition> {
  return checkDefinition(db, parseDefinitionBody(body));
}
