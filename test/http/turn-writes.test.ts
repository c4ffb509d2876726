/**
 * The lean path's answers written at the end of their event-loop turn
 * (src/http/turn-writes.ts): when each is written, that none is lost or
 * crossed, and over HTTP that every caller gets its own answer when many
 * share a turn.
 */
import { connect, type Socket } from 'node:net';
import t from 'tap';
import { createLogger, silentLogger } from '../../src/base/log';
import type { Answer } from '../../src/http/answer';
import { createTurnWriter, writeAnswer, type AnswerTarget } from '../../src/http/turn-writes';
import { call } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';

/** A response that records what is done to it, in one log shared by every target of a test. */
function recorder(name: string, log: string[], throwOnHead = false): AnswerTarget {
  const target = {
    writeHead(status: number) {
      if (throwOnHead) throw new TypeError(`invalid header on ${name}`);
      log.push(`${name} head ${status}`);
      return target;
    },
    end(body: string) {
      log.push(`${name} end ${body}`);
      return target;
    },
    destroy() {
      log.push(`${name} destroyed`);
      return target;
    },
  };
  return target as unknown as AnswerTarget;
}

const answer = (body: string, status = 200): Answer => ({ status, headers: { 'content-type': 'application/json' }, body });
const turnEnd = () => new Promise<void>((resolve) => setImmediate(resolve));

t.test('answers wait for the end of their turn, then are written in the order they were given', async (t) => {
  const log: string[] = [];
  const send = createTurnWriter(64, silentLogger);
  send(recorder('a', log), answer('1'));
  send(recorder('b', log), answer('2', 400));
  send(recorder('c', log), answer('3'));
  t.same(log, [], 'nothing is written while the turn runs');
  await turnEnd();
  t.same(log, ['a head 200', 'a end 1', 'b head 400', 'b end 2', 'c head 200', 'c end 3']);
});

t.test('a full batch is written at once; the rest waits for the turn', async (t) => {
  const log: string[] = [];
  const send = createTurnWriter(2, silentLogger);
  send(recorder('a', log), answer('1'));
  t.same(log, []);
  send(recorder('b', log), answer('2'));
  t.same(log, ['a head 200', 'a end 1', 'b head 200', 'b end 2'], 'the second of a limit of 2 writes both');
  send(recorder('c', log), answer('3'));
  t.equal(log.length, 4, 'the third waits');
  await turnEnd();
  t.same(log.slice(4), ['c head 200', 'c end 3']);
});

t.test('each turn is written at its own end', async (t) => {
  const log: string[] = [];
  const send = createTurnWriter(64, silentLogger);
  send(recorder('a', log), answer('1'));
  await turnEnd();
  t.same(log, ['a head 200', 'a end 1']);
  send(recorder('b', log), answer('2'));
  t.equal(log.length, 2, 'a later turn waits for its own end');
  await turnEnd();
  t.same(log.slice(2), ['b head 200', 'b end 2'], 'and is written then: the turn-end hook is set again');
});

t.test('a limit of 1 or less writes each answer at once', async (t) => {
  for (const limit of [1, 0]) {
    const log: string[] = [];
    const send = createTurnWriter(limit, silentLogger);
    t.equal(send, writeAnswer, `limit ${limit}: the plain writer`);
    send(recorder('a', log), answer('1'));
    t.same(log, ['a head 200', 'a end 1'], `limit ${limit}: written before send returns`);
  }
});

t.test('an answer that cannot be written costs its own connection, never the others of its turn', async (t) => {
  const log: string[] = [];
  const lines: string[] = [];
  const send = createTurnWriter(64, createLogger((line) => lines.push(line)));
  send(recorder('a', log), answer('1'));
  send(recorder('bad', log, true), answer('2'));
  send(recorder('c', log), answer('3'));
  await turnEnd();
  t.same(log, ['a head 200', 'a end 1', 'bad destroyed', 'c head 200', 'c end 3']);
  t.equal(lines.length, 1, 'one log line');
  const line = JSON.parse(lines[0]!);
  t.equal(line.level, 'error');
  t.equal(line.msg, 'answer could not be written');
  t.match(line.error, /TypeError: invalid header on bad/);
});

t.test('held computations run at the end of their turn, all of them before any write, in the order given', async (t) => {
  const log: string[] = [];
  const send = createTurnWriter(64, silentLogger);
  const work = (name: string, body: string) => () => {
    log.push(`${name} computed`);
    return answer(body);
  };
  send(recorder('a', log), work('a', '1'));
  send(recorder('b', log), answer('2'));
  send(recorder('c', log), work('c', '3'));
  t.same(log, [], 'nothing is computed while the turn runs');
  await turnEnd();
  t.same(log, ['a computed', 'c computed', 'a head 200', 'a end 1', 'b head 200', 'b end 2', 'c head 200', 'c end 3']);
});

t.test('a full batch computes and writes at once', async (t) => {
  const log: string[] = [];
  const send = createTurnWriter(2, silentLogger);
  send(recorder('a', log), () => answer('1'));
  t.same(log, []);
  send(recorder('b', log), () => answer('2'));
  t.same(log, ['a head 200', 'a end 1', 'b head 200', 'b end 2'], 'before the second send returns');
});

t.test('a limit of 1 or less computes and writes each answer at once', async (t) => {
  for (const limit of [1, 0]) {
    const log: string[] = [];
    createTurnWriter(limit, silentLogger)(recorder('a', log), () => answer('1'));
    t.same(log, ['a head 200', 'a end 1'], `limit ${limit}: written before send returns`);
  }
});

t.test('a computation that throws is answered 500 and logged, never costing the others of its turn', async (t) => {
  const log: string[] = [];
  const lines: string[] = [];
  const send = createTurnWriter(64, createLogger((line) => lines.push(line)));
  send(recorder('a', log), () => answer('1'));
  send(recorder('bad', log), () => {
    throw new RangeError('engine bug');
  });
  send(recorder('c', log), () => answer('3'));
  await turnEnd();
  t.same(log, ['a head 200', 'a end 1', 'bad head 500', 'bad end {"err":"internal error","code":"internal"}', 'c head 200', 'c end 3']);
  t.equal(lines.length, 1, 'one log line');
  const line = JSON.parse(lines[0]!);
  t.equal(line.level, 'error');
  t.equal(line.msg, 'answer could not be computed');
  t.match(line.error, /RangeError: engine bug/);
});

interface Parsed {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** The answers coming on a socket, in order (each with a Content-Length, as the public endpoints' and /healthz's are). */
function answersOn(socket: Socket): { next(): Promise<Parsed> } {
  const parsed: Parsed[] = [];
  const waiting: ((answer: Parsed) => void)[] = [];
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      const headEnd = pending.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const [statusLine, ...lines] = pending.subarray(0, headEnd).toString('latin1').split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      const end = headEnd + 4 + Number(headers['content-length']);
      if (pending.length < end) return;
      const answer = { status: Number(statusLine!.split(' ')[1]), headers, body: pending.subarray(headEnd + 4, end).toString('utf8') };
      pending = pending.subarray(end);
      const waiter = waiting.shift();
      if (waiter !== undefined) waiter(answer);
      else parsed.push(answer);
    }
  });
  return {
    next: () => {
      const ready = parsed.shift();
      if (ready !== undefined) return Promise.resolve(ready);
      return new Promise((resolve, reject) => {
        const guard = setTimeout(() => reject(new Error('no answer within 15 s')), 15_000);
        waiting.push((answer) => {
          clearTimeout(guard);
          resolve(answer);
        });
      });
    },
  };
}

t.test('over HTTP: callers whose requests share a turn each get their own answer', async (t) => {
  // A limit of 3: a turn of many requests both fills batches and ends one.
  const node = await startTestNode(testEnv(tempDir(), { RULEVAULT_ANSWER_BATCH: '3' }));
  t.teardown(async () => {
    await node.stop();
    removeDir(node.dataDir);
  });
  const callers = 40;
  const rules: string[] = [];
  for (let i = 0; i < callers; i++) {
    const created = await call(node.url, 'POST', '/api/rule-engine/rules', {
      key: node.adminKey,
      body: { name: `tier ${i}`, condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: `t${i}` }] }] },
    });
    rules.push(created.json.id);
  }
  const key = (await call(node.url, 'POST', '/api/api-keys', { key: node.adminKey, body: { name: 'e', scopes: ['evaluate'] } })).json.key;
  const { port } = new URL(node.url);
  const requestText = (i: number, requestId: string) => {
    const body = JSON.stringify({ entity_type: 'context', fields: { tier: `t${i}` } });
    return `POST /api/rule-engine/evaluate HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n`
      + `X-Request-Id: ${requestId}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  };
  const sockets: Socket[] = [];
  t.teardown(() => sockets.forEach((socket) => socket.destroy()));
  const connected = () => new Promise<Socket>((resolve, reject) => {
    const socket = connect(Number(port), '127.0.0.1', () => resolve(socket));
    sockets.push(socket);
    socket.on('error', reject);
  });
  const crossedIn = (answers: readonly Parsed[], requestId: (i: number) => string) => answers.filter((got, i) => got.status !== 200
    || got.headers['x-request-id'] !== requestId(i) || JSON.stringify(JSON.parse(got.body).matchingRuleIds) !== JSON.stringify([rules[i]]));

  t.test('one connection each, every request written before the server runs', async (t) => {
    const callerSockets = await Promise.all(Array.from({ length: callers }, connected));
    const readers = callerSockets.map(answersOn);
    // A first answer on each: the server has accepted every connection before the requests go out.
    callerSockets.forEach((socket) => socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
    t.same((await Promise.all(readers.map((reader) => reader.next()))).map((got) => got.status), Array(callers).fill(200));
    // One synchronous loop: the server, on this process's event loop, reads them all in its next turn.
    callerSockets.forEach((socket, i) => socket.write(requestText(i, `c-${i}`)));
    const answers = await Promise.all(readers.map((reader) => reader.next()));
    t.same(crossedIn(answers, (i) => `c-${i}`), [], 'every caller got its own answer and its own request id');
    t.equal(new Set(answers.map((got) => got.headers['rulevault-decision-id'])).size, callers, 'each with its own decision id');
  });

  t.test('pipelined on one connection: the answers in the order of the requests', async (t) => {
    const socket = await connected();
    const reader = answersOn(socket);
    socket.write(Array.from({ length: callers }, (_, i) => requestText(i, `p-${i}`)).join(''));
    const answers = await Promise.all(Array.from({ length: callers }, () => reader.next()));
    t.same(crossedIn(answers, (i) => `p-${i}`), [], 'in order, each its own');
  });
});
