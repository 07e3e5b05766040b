/** The data view definition module: parse, validate, defaults, special dates and locked fields. */
export * from './detector-params';
export { checkDetectorParams } from './detector-checks';
export { lockedFieldsChanged } from './locked-fields';
export { definitionToYaml, parseDefinitionBody } from './parse';
export { dataviewSchema } from './schema';
export { isSuppressed, normaliseSpecialDates, IMPACTS } from './special-dates';
export type * from './types';
export { tagList, validateDefinition } from './validate';
