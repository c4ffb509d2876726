/**
 * An answer as the lean path's handlers make it: transport-free, status,
 * headers and body, written by one `writeHead` and one `end`
 * (turn-writes.ts). The public endpoints, the catalog's writes and the error
 * answers (errors.ts) all make this one type.
 */

/** A finished answer: nothing about it is decided after it is handed over, but the ids servePublic adds. */
export interface Answer {
  readonly status: number;
  /** Made afresh for each answer (a shared one is never added to). */
  readonly headers: Record<string, string | number>;
  readonly body: string;
}

/**
 * An answer already in its JSON text (get-secrets and evaluate assemble their own: bench: cpu-per-request
 * --workload secrets, --workload evaluate), with its length in UTF-8 bytes when the assembler knows it.
 */
export class JsonText {
  constructor(readonly text: string, readonly bytes = Buffer.byteLength(text)) {}
}

/** `value` as a JSON answer with `status`, and `extra` headers after the body's own. */
export function jsonAnswer(status: number, value: unknown, extra?: Readonly<Record<string, string>>): Answer {
  const text = value instanceof JsonText ? value : undefined;
  const body = text !== undefined ? text.text : JSON.stringify(value);
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': text !== undefined ? text.bytes : Buffer.byteLength(body),
  };
  if (extra !== undefined) for (const name in extra) headers[name] = extra[name]!;
  return { status, headers, body };
}
