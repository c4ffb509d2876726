/**
 * One JSON request to the service, with every way it can fail turned into a
 * message that names the cause ("connect ECONNREFUSED 127.0.0.1:3000", not
 * just "fetch failed"), and marked transient or not: a transient failure
 * (unreachable, timeout, 5xx, an answer that is not the service's) is what
 * the prompt cache answers stale or with the fallback for; anything else is
 * the service's verdict and is passed on as is.
 */
import type { Error as ErrorBody } from './api-types';

/** The stable code the service answers beside `err` (docs/api.md#error-codes); absent on failures of the client's own. */
export type ErrorCode = ErrorBody['code'];

export interface ConnectionOptions {
  /** Base URL of the service, e.g. http://127.0.0.1:3000 or https://host/rulevault/; default RULEVAULT_URL. */
  readonly url?: string;
  /** API key; default RULEVAULT_API_KEY. */
  readonly apiKey?: string;
  /** Request timeout in milliseconds (default 10 s). */
  readonly timeoutMs?: number;
}

export type Outcome =
  | { readonly ok: true; readonly status: number; readonly json: unknown; readonly etag: string | null }
  | { readonly ok: false; readonly failure: Failure };

export interface Failure {
  readonly message: string;
  /** True when the service could not give its answer (as opposed to refusing the request). */
  readonly transient: boolean;
  /** HTTP status when the service answered. */
  readonly status?: number;
  /** The service's error code when its answer carried one (docs/api.md#error-codes). */
  readonly code?: ErrorCode;
}

const DEFAULT_TIMEOUT_MS = 10_000;
/**
 * The longest timer Node keeps (~24.8 days): AbortSignal.timeout accepts up to
 * 2^32 - 1 but, past this, fires after 1 ms (TimeoutOverflowWarning).
 */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export interface Request {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Starts with `/api/...`; joined to the base URL's path. */
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export async function send(options: ConnectionOptions, request: Request): Promise<Outcome> {
  const base = options.url ?? process.env.RULEVAULT_URL;
  const apiKey = options.apiKey ?? process.env.RULEVAULT_API_KEY;
  if (base === undefined || base === '') return refused('no RuleVault URL: pass url or set RULEVAULT_URL');
  if (apiKey === undefined || apiKey === '') return refused('no API key: pass apiKey or set RULEVAULT_API_KEY');
  const url = joinUrl(base, request.path);
  if (url === undefined) return refused(`the RuleVault URL ${JSON.stringify(base)} is not an http or https URL`);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // A bad setting is the caller's mistake: said so, not reported as the service unreachable (AbortSignal.timeout's throw).
  const badTimeout = timerSettingError('timeoutMs', timeoutMs);
  if (badTimeout !== undefined) return refused(badTimeout);
  let payload: string | undefined;
  try {
    payload = request.body === undefined ? undefined : JSON.stringify(request.body);
  } catch (error) {
    // A BigInt or a cycle in the caller's data: their mistake, not an outage.
    return refused(`the request to ${request.path} cannot be sent as JSON: ${describeCause(error)}`);
  }
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers: {
        ...(request.body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...request.headers,
        Authorization: `Bearer ${apiKey}`,
      },
      ...(payload === undefined ? {} : { body: payload }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const where = `${request.method} ${url}`;
    if (isTimeout(error)) return transient(`RuleVault did not answer ${where} within ${timeoutMs} ms`);
    return transient(`RuleVault is unreachable (${where}): ${describeCause(error)}`);
  }
  let json: unknown;
  try {
    json = response.status === 204 ? null : await response.json();
  } catch (error) {
    if (isTimeout(error)) return transient(`RuleVault did not finish answering ${request.method} ${url} within ${timeoutMs} ms`);
    const type = response.headers.get('content-type') ?? 'no content type';
    return transient(`RuleVault answered ${response.status} (${type}) without a JSON body at ${url}: is the URL the service's?`, response.status);
  }
  if (response.status >= 400) {
    const code = errorCode(json);
    const failure = { message: errorText(json) ?? `RuleVault answered ${response.status}`, status: response.status, ...(code === undefined ? {} : { code }) };
    return { ok: false, failure: { ...failure, transient: response.status >= 500 } };
  }
  return { ok: true, status: response.status, json, etag: response.headers.get('etag') };
}

/** Why `value` cannot be a timer's delay in ms (a whole number from `min` to MAX_TIMEOUT_MS), naming `name`; undefined when it can. */
export function timerSettingError(name: string, value: unknown, min = 1): string | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && value >= min && value <= MAX_TIMEOUT_MS) return undefined;
  return `${name} must be a whole number of milliseconds from ${min} to ${MAX_TIMEOUT_MS}, not ${String(value)}`;
}

/**
 * The base URL's path is kept: `http://host/rulevault` and
 * `http://host/rulevault/` both give `http://host/rulevault/api/...`
 * (`new URL('/api/...', base)` would drop the prefix).
 */
export function joinUrl(base: string, path: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(base);
  } catch {
    return undefined;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  const prefix = parsed.pathname.replace(/\/+$/, '');
  const joined = new URL(parsed.origin);
  // Split at the first `?` only: the query keeps any later one.
  const mark = path.indexOf('?');
  joined.pathname = `${prefix}${mark === -1 ? path : path.slice(0, mark)}`;
  if (mark !== -1) joined.search = path.slice(mark + 1);
  return joined.href;
}

/** The service's machine-readable error code, when its answer carries one. */
export function errorCode(json: unknown): ErrorCode | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const code = (json as { code?: unknown }).code;
  return typeof code === 'string' ? (code as ErrorCode) : undefined;
}

/** The `err` member of an error body, when there is one. */
export function errorText(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const err = (json as { err?: unknown }).err;
  return typeof err === 'string' ? err : undefined;
}

/**
 * The innermost useful message: undici's "fetch failed" hides the socket
 * error in `cause`, and a host with several addresses gives an
 * AggregateError whose own message is empty.
 */
export function describeCause(error: unknown): string {
  const messages: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 8; depth += 1) {
    if (current instanceof AggregateError && current.errors.length > 0) {
      messages.push(current.errors.map(describeCause).join('; '));
      break;
    }
    if (current instanceof Error) {
      const code = (current as { code?: unknown }).code;
      messages.push(current.message !== '' ? current.message : typeof code === 'string' ? code : current.name);
      current = current.cause;
    } else {
      messages.push(String(current));
      break;
    }
  }
  // The outermost wrapper ("fetch failed") says nothing the inner ones do not.
  const useful = messages.length > 1 && messages[0] === 'fetch failed' ? messages.slice(1) : messages;
  return useful.join(': ');
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

function refused(message: string): Outcome {
  return { ok: false, failure: { message, transient: false } };
}

function transient(message: string, status?: number): Outcome {
  return { ok: false, failure: { message, transient: true, ...(status === undefined ? {} : { status }) } };
}
