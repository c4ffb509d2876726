/**
 * Structured logs: pino JSON lines on stdout. Callers pass only what may be
 * logged; as a second line of defence, authorization headers and anything
 * named like a secret value are redacted.
 */
import pino from 'pino';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** The underlying pino logger, for the per-request line (src/http/request-log.ts). */
  readonly pino: pino.Logger;
}

const REDACT = [
  'authorization', '*.authorization', 'req.headers.authorization', 'headers.authorization',
  'value', '*.value', 'plaintext', '*.plaintext', 'master_key', '*.master_key',
];

/** A logger writing JSON lines to `write` (default stdout) at `level`. */
export function createLogger(write?: (line: string) => void, level: LogLevel = 'info'): Logger {
  const destination = write === undefined ? pino.destination({ dest: 1, sync: false }) : { write };
  const base = pino(
    {
      level,
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    destination,
  );
  return {
    info: (message, fields = {}) => base.info(fields, message),
    warn: (message, fields = {}) => base.warn(fields, message),
    error: (message, fields = {}) => base.error(fields, message),
    pino: base,
  };
}

/** A logger that drops everything, for tests and tools that print their own output. */
export const silentLogger: Logger = createLogger(() => undefined, 'silent');
