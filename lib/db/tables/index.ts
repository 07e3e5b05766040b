export * from './comments';
export * from './connectors';
export * from './filters';
export * from './identity';
export * from './jobs';
