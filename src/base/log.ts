/**
 * Structured logs: pino JSON lines on stdout. Callers pass only what may be
 * logged; as a second line of defence, authorization headers and anything
 * named like a secret value are redacted.
 */
import pino from 'pino';
import { ERROR_STATUS } from './errors';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
  /** The per-request line (src/http/request-log.ts), at info. */
  request(line: RequestLine): void;
  /** The underlying pino logger. */
  readonly pino: pino.Logger;
}

/** What a request's log line says: never a body, a header or a key, only the key's id. */
export interface RequestLine {
  readonly request_id: string;
  readonly method: string;
  readonly route: string;
  readonly status: number;
  readonly duration_ms: number;
  readonly key_id: string | null;
  /**
   * On an endpoint answered 200 whatever happened (get-secrets, get-compiled): the body's error code, null
   * when it answered; the line then says `outcome` ("ok" or "error") and `code`. Undefined elsewhere: the status tells.
   */
  readonly code?: string | null;
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
  const stream = (base as unknown as Record<symbol, { write(line: string): void }>)[pino.symbols.streamSym];
  // The ISO time of the current millisecond, made once per millisecond, not once per line.
  let lastMs = 0;
  let lastIso = '';
  const isoNow = (): string => {
    const now = Date.now();
    if (now !== lastMs) {
      lastMs = now;
      lastIso = new Date(now).toISOString();
    }
    return lastIso;
  };
  return {
    request(line) {
      if (!base.isLevelEnabled('info')) return;
      // The same JSON line pino writes for these fields, assembled by hand: pino's object walk and
      // redaction cost more than the rest of the request path's logging put together, and none of
      // these fields can hold a secret (bench: cpu-per-request --workload evaluate --variant info:LOG_LEVEL=info).
      stream.write(
        `{"level":"info","time":"${isoNow()}","request_id":${JSON.stringify(line.request_id)},` +
          `"method":${JSON.stringify(line.method)},"route":${JSON.stringify(line.route)},"status":${line.status},` +
          `"duration_ms":${line.duration_ms},"key_id":${line.key_id === null ? 'null' : JSON.stringify(line.key_id)},` +
          outcomeMembers(line.code) +
          `"msg":"${line.status >= 500 || isInternal(line.code) ? 'request failed' : 'request'}"}\n`,
      );
    },
    info: (message, fields = {}) => base.info(fields, message),
    warn: (message, fields = {}) => base.warn(fields, message),
    error: (message, fields = {}) => base.error(fields, message),
    pino: base,
  };
}

/** The line's `outcome` and `code` members, when the status cannot tell them (RequestLine.code). */
function outcomeMembers(code: string | null | undefined): string {
  if (code === undefined) return '';
  return code === null ? '"outcome":"ok","code":null,' : `"outcome":"error","code":${JSON.stringify(code)},`;
}

/** An always-200 answer whose error is the service's (internal, unavailable) is a failed request, as a 5xx is. */
function isInternal(code: string | null | undefined): boolean {
  return typeof code === 'string' && (ERROR_STATUS as Record<string, number>)[code]! >= 500;
}

/** A logger that drops everything, for tests and tools that print their own output. */
export const silentLogger: Logger = createLogger(() => undefined, 'silent');
