/**
 * A definition as people write it: only what differs from the defaults. Stored definitions carry
 * every param of every detector (validateDefinition fills them in), which makes a view with 13
 * detectors 300 lines long; the compact form validates back to the same definition.
 */
import { DETECTOR_PARAM_SPECS, type ParamSpec } from './detector-params';
import { dataviewSchema } from './schema';
import type { DataViewDefinition } from './types';

type Node = { properties?: Record<string, Node>; default?: unknown };

function schemaDefault(...path: string[]): unknown {
  let node = dataviewSchema as Node;
  for (const key of path) node = node.properties?.[key] as Node;
  return node.default;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** `obj` without the keys whose value equals the schema default under `section`. */
function withoutDefaults(obj: object, section: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const d = schemaDefault(section, k);
    if (d !== undefined && same(v, d)) continue;
    out[k] = v;
  }
  return out;
}

/** The definition with default params, default analysis settings and empty lists left out. */
export function compactDefinition(def: DataViewDefinition): Record<string, unknown> {
  const analysis = withoutDefaults(def.analysis, 'analysis');
  analysis.detectors = def.analysis.detectors.map((d) => {
    const specs = DETECTOR_PARAM_SPECS[d.type] as Record<string, ParamSpec>;
    const params = Object.fromEntries(
      Object.entries(d.params).filter(
        ([k, v]) => specs[k]?.default === undefined || !same(v, specs[k].default),
      ),
    );
    return Object.keys(params).length > 0 ? { type: d.type, params } : { type: d.type };
  });
  // Calendar entries of the default impact (both) in their short form: a plain date or rule.
  analysis.specialDates = def.analysis.specialDates.map((d) => (d.impact === 'both' ? d.date : d));
  analysis.recurringRules = def.analysis.recurringRules.map((r) => (r.impact === 'both' ? r.rule : r));
  analysis.specialPeriods = def.analysis.specialPeriods.map((p) =>
    p.impact === 'both' ? { start: p.start, end: p.end } : p,
  );
  for (const key of ['detectors', 'specialDates', 'recurringRules', 'specialPeriods']) {
    if (Array.isArray(analysis[key]) && (analysis[key] as unknown[]).length === 0) delete analysis[key];
  }
  const out: Record<string, unknown> = {
    schemaVersion: def.schemaVersion,
    metadata: def.metadata,
    source: withoutDefaults(def.source, 'source'),
    categories: def.categories,
  };
  if (Object.keys(analysis).length > 0) out.analysis = analysis;
  return out;
}
