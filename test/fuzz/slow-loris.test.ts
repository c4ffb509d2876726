/**
 * Slow-loris: a client that dribbles its headers, or sends headers and then
 * dribbles the body, is cut off by the node's timeouts
 * (RULEVAULT_HEADERS_TIMEOUT_MS, RULEVAULT_REQUEST_TIMEOUT_MS). The assertion
 * is on the dribble's progress, not on a clock: the connection must end (or
 * be answered 408) before half of the bytes went out.
 */
import { connect } from 'node:net';
import t from 'tap';
import { withNode } from '../support/with-node';

const BYTES = 80;
const INTERVAL_MS = 250; // the whole dribble takes 20 s; the timeouts below are 0.5 s and 1 s

const live = withNode(t, { env: { RULEVAULT_HEADERS_TIMEOUT_MS: '500', RULEVAULT_REQUEST_TIMEOUT_MS: '1000' } });

interface DribbleResult {
  /** Bytes of the dribbled part written before the server ended the connection. */
  readonly sent: number;
  /** What the server wrote back, if anything. */
  readonly answer: string;
}

/** Sends `head` at once, then `tail` one byte per interval until the server closes or the tail is out. */
function dribble(head: string, tail: string): Promise<DribbleResult> {
  const { port } = new URL(live.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1');
    let sent = 0;
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearInterval(timer);
      socket.destroy();
      resolve({ sent, answer });
    };
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('close', finish);
    socket.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? finish() : reject(error)));
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (sent === tail.length) return finish();
        socket.write(tail[sent]!);
        sent += 1;
      }, INTERVAL_MS);
    });
  });
}

t.test('a body dribbled byte by byte is cut off by the request timeout', async (t) => {
  const body = JSON.stringify({ entity_type: 'context', fields: { a: 'x'.repeat(BYTES) } }).slice(0, BYTES);
  const head = [
    'POST /api/rule-engine/evaluate HTTP/1.1',
    'Host: 127.0.0.1',
    'Authorization: Bearer not-a-key',
    'Content-Type: application/json',
    `Content-Length: ${BYTES}`,
    '', '',
  ].join('\r\n');
  const result = await dribble(head, body);
  t.ok(result.sent < BYTES / 2, `the server ended the request after ${result.sent} of ${BYTES} body bytes`);
  t.ok(result.answer === '' || /^HTTP\/1\.1 408/.test(result.answer), `closed, or answered 408: ${JSON.stringify(result.answer.slice(0, 40))}`);
});

t.test('headers dribbled byte by byte are cut off by the headers timeout', async (t) => {
  const headers = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'y'.repeat(BYTES)}\r\n\r\n`.slice(0, BYTES);
  const result = await dribble('', headers);
  t.ok(result.sent < BYTES / 2, `the server ended the connection after ${result.sent} of ${BYTES} header bytes`);
  t.ok(result.answer === '' || /^HTTP\/1\.1 408/.test(result.answer), `closed, or answered 408: ${JSON.stringify(result.answer.slice(0, 40))}`);
});

t.test('a prompt client is not affected by the short timeouts', async (t) => {
  const health = await fetch(`${live.url}/healthz`);
  t.equal(health.status, 200);
});
