/**
 * JSON Schemas of the answers (documentation and the answer tests; nothing validates answers at run time).
 * Each file holds the `$defs` of one area, each with its own $id; lib/http/response-schemas.ts maps every
 * operation to one of them and lib/http/openapi.ts lists them as components.
 */
import alerts from './alerts.schema.json' with { type: 'json' };
import comments from './comments.schema.json' with { type: 'json' };
import connectors from './connectors.schema.json' with { type: 'json' };
import dataviews from './dataviews.schema.json' with { type: 'json' };
import detection from './detection.schema.json' with { type: 'json' };
import explorer from './explorer.schema.json' with { type: 'json' };
import feedback from './feedback.schema.json' with { type: 'json' };
import filters from './filters.schema.json' with { type: 'json' };
import identity from './identity.schema.json' with { type: 'json' };
import incidents from './incidents.schema.json' with { type: 'json' };
import summaries from './summaries.schema.json' with { type: 'json' };

type Json = Record<string, unknown>;

/** Every response schema by its $id. */
export const responseSchemas: Json[] = [
  alerts,
  comments,
  connectors,
  dataviews,
  detection,
  explorer,
  feedback,
  filters,
  identity,
  incidents,
  summaries,
].flatMap((file) => Object.values((file as { $defs: Record<string, Json> }).$defs));
