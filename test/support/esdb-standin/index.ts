export { createEsdbStandin, type EsdbStandin, type StandinOptions } from './server';
export { MemoryLog, type LogRecord, type LogPosition } from './memory-log';
