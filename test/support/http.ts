/** A small fetch wrapper for black-box tests: status, headers and parsed JSON of one request. */

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly json: any;
  readonly text: string;
}

export interface RequestOptions {
  readonly key?: string;
  readonly body?: unknown;
  /** Sent as is, instead of JSON.stringify(body). */
  readonly raw?: string | Uint8Array;
  readonly headers?: Record<string, string>;
}

export async function call(base: string, method: string, path: string, options: RequestOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers.authorization = `Bearer ${options.key}`;
  let body: string | Uint8Array | undefined = options.raw;
  if (body === undefined && options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(base + path, { method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

/** A client bound to one node and one key; `base` may be read late (a node that starts in a before hook). */
export function client(baseUrl: string | (() => string), key?: string) {
  const base = () => (typeof baseUrl === 'string' ? baseUrl : baseUrl());
  return {
    get: (path: string, options: RequestOptions = {}) => call(base(), 'GET', path, { key, ...options }),
    post: (path: string, body?: unknown, options: RequestOptions = {}) => call(base(), 'POST', path, { key, body, ...options }),
    patch: (path: string, body?: unknown, options: RequestOptions = {}) => call(base(), 'PATCH', path, { key, body, ...options }),
    delete: (path: string, options: RequestOptions = {}) => call(base(), 'DELETE', path, { key, ...options }),
  };
}

export type Client = ReturnType<typeof client>;

/** Creates a rule (name `rule` unless given) with an admin client; throws unless 201. Returns its id. */
export async function createRule(admin: Client, body: Record<string, unknown>): Promise<string> {
  const answer = await admin.post('/api/rule-engine/rules', { name: 'rule', ...body });
  if (answer.status !== 201) throw new Error(`rule not created: ${answer.text}`);
  return answer.json.id;
}
