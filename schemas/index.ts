/** Every JSON Schema of the service, registered with ajv by lib/shared/validation.ts and listed in the OpenAPI document. */
import common from './common.schema.json' with { type: 'json' };
import dataview from './dataview.schema.json' with { type: 'json' };
import identity from './identity.schema.json' with { type: 'json' };

export const allSchemas: Array<{ $id: string; [key: string]: unknown }> = [common, identity, dataview];
