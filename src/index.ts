/** The package's public entry: the client library. */
export * from './client';
