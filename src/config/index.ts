export { parseDuration } from './duration.ts';
export { ConfigError, DEFAULT_CONFIG_FILE, deepMerge, envLayer, loadConfig, validateConfig } from './load.ts';
export * from './schema.ts';
