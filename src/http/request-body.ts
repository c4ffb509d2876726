/**
 * Request bodies: the limit, read from the declared length before any byte
 * of the body (every route), and on the lean path's routes the bytes
 * (inflated when compressed) and what they mean (JSON whatever the
 * Content-Type, contract §1).
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import express from 'express';
import { AppError, badRequest } from '../base/errors';

export const INVALID_JSON = 'request body is not valid JSON';
export const UNSUPPORTED_CHARSET = 'request body encoding is not supported: send UTF-8 JSON';

export function tooLargeMessage(limit: number): string {
  return `request body is larger than the limit of ${limit} bytes`;
}

/** The 413 for a body over `limit`; made only when needed (an error captures a stack trace; bench: http-evaluate). */
export function payloadTooLarge(limit: number): AppError {
  return new AppError('payload_too_large', tooLargeMessage(limit));
}

/** True when the request declares a Content-Length over `limit`: it is refused from its headers, unread. */
export function declaresTooLarge(headers: IncomingHttpHeaders, limit: number): boolean {
  const declared = headers['content-length'];
  // Node's parser has already refused a malformed Content-Length; a number over the limit is all that is left.
  return declared !== undefined && Number(declared) > limit;
}

/** What reading a body gave: its bytes, or the error that stopped it (over the limit, aborted, undecodable). */
export type BodyRead = { readonly bytes: Buffer } | { readonly failure: unknown };

const NO_BODY: BodyRead = { bytes: Buffer.alloc(0) };

/**
 * Reads a request's body up to `limit` bytes, then calls `done` once. An
 * uncompressed body (no Content-Encoding, or `identity`) is read by
 * `readBodyBytes`; a compressed one by body-parser's raw reader (the one
 * express ships), which inflates gzip, deflate and br with `limit` on the
 * inflated bytes, and whose errors (an unknown encoding, bytes that do not
 * inflate) errors.ts maps.
 */
export function createBodyReader(limit: number): (req: IncomingMessage, res: ServerResponse, done: (body: BodyRead) => void) => void {
  // Raw bytes whatever the Content-Type; what they mean is the front door's decision.
  const inflating = express.raw({ type: () => true, limit });
  return (req, res, done) => {
    if (!isCompressed(req.headers)) {
      readBodyBytes(req, limit, done);
      return;
    }
    inflating(req as express.Request, res as express.Response, (error?: unknown) => {
      const bytes = (req as { body?: unknown }).body;
      done(error !== undefined ? { failure: error } : Buffer.isBuffer(bytes) ? { bytes } : NO_BODY);
    });
  };
}

function isCompressed(headers: IncomingHttpHeaders): boolean {
  const encoding = headers['content-encoding'];
  return encoding !== undefined && encoding.toLowerCase() !== 'identity';
}

/**
 * Reads an uncompressed body up to `limit` bytes. A chunked body that goes
 * over is read to its end (the client is still sending it) and then refused.
 * An aborted request is never answered: no one is there to read it.
 */
export function readBodyBytes(req: IncomingMessage, limit: number, done: (body: BodyRead) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
  });
  // `on`, not `once`: each fires at most once, and once's wrapper and its removal cost ~40 ns per event (bench: cpu-per-request --workload evaluate).
  req.on('end', () => done(size > limit ? { failure: payloadTooLarge(limit) } : { bytes: Buffer.concat(chunks, size) }));
  req.on('error', () => undefined);
}

/**
 * A public request's body as JSON (any JSON text; the endpoint checks its
 * shape). No bytes at all is no body (undefined). Otherwise the bytes must be
 * UTF-8 (a charset in the Content-Type, if any, must say so), one leading
 * byte-order mark is skipped, and the rest must be JSON: whitespace alone is not.
 */
export function decodeJsonBody(bytes: Buffer, contentType: string | undefined): unknown {
  if (bytes.length === 0) return undefined;
  const charset = contentType === undefined ? undefined : charsetOf(contentType);
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw badRequest(UNSUPPORTED_CHARSET);
  let text = bytes.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw badRequest(INVALID_JSON);
  }
}

function charsetOf(contentType: string): string | undefined {
  // Parameters follow a ';': without one (`application/json`, most callers) there is no charset to read.
  if (!contentType.includes(';')) return undefined;
  return /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1]?.toLowerCase();
}
