/**
 * The JSON Schema the data view editor completes and explains with: schemas/dataview.schema.json (the
 * one the API validates with) where each detector's `params` is spelt out from the params table — kind,
 * bounds, default and meaning of every param per type — so completion offers a type's own params
 * with their range. The service still validates with the plain schema plus the semantic checks;
 * this one only adds what those checks know, from the same table.
 */
import { holidayCountries, holidayStates } from '../../calendar/holidays';
import type { ParamSpec } from '../../detection/param-specs';
import { DETECTOR_MODES, DETECTOR_PARAM_SPECS, DETECTOR_TYPES, type DetectorType } from './detector-params';
import { dataviewSchema } from './schema';

type Schema = Record<string, unknown>;

/** What each detector type compares, in one line (docs/detectors.md has the whole story). */
export const DETECTOR_SUMMARIES: Readonly<Record<DetectorType, string>> = {
  dod: 'Day over day: each day against yesterday scaled by the weekday profile.',
  wow: 'Week over week: each day against the same weekday one week earlier.',
  mom: "Month over month: a calendar month's total against the previous month.",
  qoq: "Quarter over quarter: a calendar quarter's total against the previous quarter.",
  mpy: "Month of the previous year: a month's total against the same month one year earlier.",
  cw: "Calendar week: a Monday-Sunday week's total against the four weeks before it.",
  gap: 'Runs of days without source data.',
  spike: "Single days far from the same weekday's mean (robust z-score).",
  changepoint: 'A lasting shift of the level: the mean after a day against the mean before it.',
  dt: "Days outside the Tukey fences of the window's residuals.",
  peer: "A series that moves unlike its peers (same parent): the peers' median change applied to its mean.",
  mix: "A series whose share of its parent moves: today's parent value times the usual share.",
  cardinality: 'How many children of a series have a non-zero value (children appearing or disappearing).',
};

function range(spec: ParamSpec): string {
  const low = spec.above !== undefined ? `> ${spec.above}` : spec.min !== undefined ? `≥ ${spec.min}` : '';
  const high = spec.max !== undefined ? `≤ ${spec.max}` : '';
  const bounds = [low, high].filter(Boolean).join(', ');
  const dflt = spec.default !== undefined ? `default ${spec.default}` : 'unset by default';
  return bounds ? `${bounds}; ${dflt}` : dflt;
}

/** One param as JSON Schema: its kind, bounds, default, and its meaning with the range in words. */
export function paramSchema(spec: ParamSpec): Schema {
  const out: Schema = { description: `${spec.description} (${range(spec)})` };
  if (spec.kind === 'boolean') out.type = 'boolean';
  else if (spec.kind === 'mode') out.enum = [...DETECTOR_MODES];
  else {
    out.type = spec.kind;
    if (spec.min !== undefined) out.minimum = spec.min;
    if (spec.above !== undefined) out.exclusiveMinimum = spec.above;
    if (spec.max !== undefined) out.maximum = spec.max;
  }
  if (spec.default !== undefined) out.default = spec.default;
  return out;
}

function paramsSchema(type: DetectorType): Schema {
  const specs = DETECTOR_PARAM_SPECS[type] as Record<string, ParamSpec>;
  return {
    type: ['object', 'null'],
    description: `Params of ${type}; every one is optional and takes its default when left out.`,
    additionalProperties: false,
    properties: Object.fromEntries(Object.entries(specs).map(([k, s]) => [k, paramSchema(s)])),
  };
}

function detectorItem(base: Schema): Schema {
  const props = base.properties as Record<string, Schema>;
  return {
    ...base,
    properties: {
      ...props,
      type: {
        ...props.type,
        enum: [...DETECTOR_TYPES],
        description: DETECTOR_TYPES.map((t) => `${t}: ${DETECTOR_SUMMARIES[t]}`).join('\n'),
      },
    },
    // The type picks the params: json-schema resolves if/then against the document, so completion
    // and hover under `params` see the params of the type written above them.
    allOf: DETECTOR_TYPES.map((t) => ({
      if: { properties: { type: { const: t } }, required: ['type'] },
      // biome-ignore lint/suspicious/noThenProperty: `then` is JSON Schema's keyword, not a thenable
      then: { properties: { params: paramsSchema(t) } },
    })),
  };
}

/** Values the editor proposes, each with its meaning, while any other text stays valid (names are accepted too). */
function proposals(values: Record<string, string>): Schema[] {
  return [
    ...Object.entries(values).map(([code, name]) => ({ const: code, description: name })),
    { type: ['string', 'null'] },
  ];
}

/** analysis.calendar with the holiday library's country codes, and each country's state codes once it is written. */
function calendarSchema(base: Schema): Schema {
  const props = base.properties as Record<string, Schema>;
  const countries = holidayCountries();
  const withStates = Object.keys(countries)
    .map((code) => [code, holidayStates(code)] as const)
    .filter(([, states]) => Object.keys(states).length > 0);
  return {
    ...base,
    properties: { ...props, country: { ...props.country, anyOf: proposals(countries) } },
    allOf: withStates.map(([code, states]) => ({
      if: { properties: { country: { const: code } }, required: ['country'] },
      // biome-ignore lint/suspicious/noThenProperty: `then` is JSON Schema's keyword, not a thenable
      then: { properties: { state: { ...props.state, anyOf: proposals(states) } } },
    })),
  };
}

let cached: Schema | undefined;

/** GET /dataviews/definition-schema: the definition schema with every detector's params spelt out. */
export function editorSchema(): Schema {
  if (cached) return cached;
  const schema = structuredClone(dataviewSchema) as Schema & { properties: Record<string, Schema> };
  const analysis = schema.properties.analysis as { properties: Record<string, Schema> };
  const detectors = analysis.properties.detectors as { items: Schema };
  detectors.items = detectorItem(detectors.items);
  analysis.properties.calendar = calendarSchema(analysis.properties.calendar);
  cached = schema;
  return schema;
}
