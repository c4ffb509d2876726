/**
 * A raw HTTP client for black-box tests that need exact bytes and headers
 * (fetch normalizes or refuses some), a chunked body, or a declared length
 * the body never reaches. Every request is guarded: an answer that does not
 * come within `guardMs` resolves as `{ hung: true }`, so a test that would
 * hang on a wrong server fails with an assertion instead.
 */
import { request, type Agent } from 'node:http';

export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string | string[]>;
  /** Sent with a matching Content-Length unless `chunked` or a content-length header is given. */
  readonly body?: Buffer | string;
  /** Send the body with Transfer-Encoding: chunked (no Content-Length). */
  readonly chunked?: boolean;
  /** Send the headers and only this much of the body, then wait for the answer without ending the request. */
  readonly holdOpen?: boolean;
  readonly agent?: Agent;
}

export interface RawResponse {
  readonly hung: boolean;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
}

const HUNG: RawResponse = { hung: true, status: 0, headers: {}, text: '' };

export function sendRaw(base: string, req: RawRequest, guardMs = 15_000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string | string[] | number> = { ...req.headers };
    const declared = Object.keys(headers).some((name) => name.toLowerCase() === 'content-length');
    if (body !== undefined && !req.chunked && !declared) headers['content-length'] = body.length;
    const outgoing = request(base + req.path, { method: req.method, headers, agent: req.agent ?? false });
    const guard = setTimeout(() => {
      outgoing.destroy();
      resolve(HUNG);
    }, guardMs);
    outgoing.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', () => undefined);
      res.on('end', () => {
        clearTimeout(guard);
        resolve({ hung: false, status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        if (req.holdOpen) outgoing.destroy();
      });
    });
    outgoing.on('error', (error) => {
      clearTimeout(guard);
      reject(error);
    });
    if (req.chunked && body !== undefined) {
      // Two chunks, so the body really travels chunked.
      const half = Math.floor(body.length / 2);
      outgoing.write(body.subarray(0, half));
      outgoing.write(body.subarray(half));
    } else if (req.holdOpen) {
      outgoing.flushHeaders();
      if (body !== undefined && body.length > 0) outgoing.write(body);
      return;
    } else if (body !== undefined) {
      outgoing.write(body);
    }
    outgoing.end();
  });
}

/** An answer with its body parsed (undefined when it is not JSON). */
export function withJson(answer: RawResponse): RawResponse & { json: any } {
  let json: any;
  try {
    json = JSON.parse(answer.text);
  } catch {
    json = undefined;
  }
  return { ...answer, json };
}
