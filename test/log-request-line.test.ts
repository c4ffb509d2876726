/**
 * The per-request log line is assembled by hand (src/base/log.ts): it must be the
 * very line pino writes for the same fields, escape what needs escaping, and
 * follow the level.
 */
import t from 'tap';
import { createLogger, type RequestLine } from '../src/base/log';

function lines(level: 'info' | 'warn', write: (logger: ReturnType<typeof createLogger>) => void): string[] {
  const out: string[] = [];
  write(createLogger((line) => out.push(line), level));
  return out;
}

const withoutTime = (line: string) => line.replace(/"time":"[^"]+"/, '"time":"T"');

t.test('the hand-built line is the line pino writes for the same fields', async (t) => {
  const cases: RequestLine[] = [
    { request_id: '0b7c2a1e-3f0e-4c6e-9f3e-2d1c0b9a8f7e', method: 'POST', route: '/api/rule-engine/evaluate', status: 200, duration_ms: 1, key_id: 'k-1' },
    { request_id: 'a.b:c', method: 'GET', route: 'unmatched', status: 404, duration_ms: 0, key_id: null },
    { request_id: 'x', method: 'PO"ST\\', route: '/odd "route"\n', status: 503, duration_ms: 12, key_id: 'q"k' },
  ];
  for (const fields of cases) {
    const msg = fields.status >= 500 ? 'request failed' : 'request';
    const [byPino] = lines('info', (l) => l.pino.info(fields, msg));
    const [byHand] = lines('info', (l) => l.request(fields));
    t.equal(withoutTime(byHand), withoutTime(byPino), `${fields.method} ${fields.status}`);
    t.same(JSON.parse(byHand).msg, msg);
    t.match(JSON.parse(byHand).time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  }
});

t.test('no request line below info', async (t) => {
  t.same(lines('warn', (l) => l.request({ request_id: 'x', method: 'GET', route: '/', status: 200, duration_ms: 0, key_id: null })), []);
});
