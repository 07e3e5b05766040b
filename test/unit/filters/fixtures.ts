/** Builders for hand-made anomalies in filter tests. */
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import common from '../../../schemas/common.schema.json' with { type: 'json' };
import type { AnomalyRecord } from '../../../lib/filters/types';

let nextId = 1;

/** An anomaly with plain defaults; ids count up unless given. */
export function anomaly(overrides: Partial<AnomalyRecord> = {}): AnomalyRecord {
  const id = overrides.id ?? nextId++;
  return {
    id,
    dataViewId: 1,
    dataView: 'sales / orders',
    seriesId: id,
    measure: 'value',
    type: 'DOD',
    startDate: '2024-03-10',
    endDate: '2024-03-10',
    duration: 1,
    actualValue: 100,
    predictedValue: 80,
    change: 20,
    changePct: 25,
    changeCum: 20,
    sharePct: 10,
    recurrence: 0,
    result: 'Positive',
    categories: {},
    sin: 1,
    sim: 0.1,
    comments: [],
    ...overrides,
  };
}

/** An Ajv set up like lib/shared/validation.ts, with the common schema and the given ones. */
export function schemaValidator(...schemas: object[]): Ajv {
  const ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true, coerceTypes: false });
  addFormats(ajv);
  ajv.addSchema(common);
  for (const s of schemas) ajv.addSchema(s);
  return ajv;
}

export const ids = (records: Array<{ id: number }>): number[] => records.map((r) => r.id);
