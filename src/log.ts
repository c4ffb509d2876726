/**
 * A minimal structured logger: JSON lines on stdout. Callers pass only what
 * may be logged; nothing here ever receives a secret value or an API key.
 */
export interface Logger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function createLogger(write: (line: string) => void = (line) => process.stdout.write(line + '\n')): Logger {
  const log = (level: string) => (message: string, fields: Record<string, unknown> = {}) =>
    write(JSON.stringify({ level, time: new Date().toISOString(), msg: message, ...fields }));
  return { info: log('info'), warn: log('warn'), error: log('error') };
}

/** A logger that drops everything, for tests and tools that print their own output. */
export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
