/**
 * The local evaluator's SSE reader (src/client/local.ts createSseParser):
 * the events of a stream do not depend on how it is cut into chunks (every
 * cut of a text with LF, CR and CRLF line ends), and a large event cut into
 * many small chunks is read in one pass: a 32 MiB line in 1 KiB chunks, which
 * took the reader that appended every chunk to one buffer string the better
 * part of an hour (issue 62 item 6: a 31 MiB snapshot took 120 s in 64 KiB
 * chunks), comes out whole.
 */
import t from 'tap';
import { createSseParser, type SseEvent } from '../../src/client/local';

function parse(chunks: readonly string[]): { events: SseEvent[]; comments: number } {
  const events: SseEvent[] = [];
  let comments = 0;
  const parser = createSseParser((event) => events.push(event), () => comments++);
  for (const chunk of chunks) parser.push(chunk);
  return { events, comments };
}

const STREAM = [
  'retry: 1000\n\n',
  'id: 7\nevent: snapshot\ndata: {"position":"7"}\n\n',
  ': heartbeat\r\n\r\n',
  'id: 8\revent: change\rdata: first line\rdata: second line\r\r',
  ': heartbeat\n\n',
  'id: 9\r\nevent: change\r\ndata:no space\r\n\r\n',
  'data: a message with no event\n\n',
  'event: cutoff\ndata: {"err":"behind"}\n\n',
].join('');

const EXPECTED: SseEvent[] = [
  { event: 'snapshot', data: '{"position":"7"}', id: '7' },
  { event: 'change', data: 'first line\nsecond line', id: '8' },
  { event: 'change', data: 'no space', id: '9' },
  { event: 'message', data: 'a message with no event', id: undefined },
  { event: 'cutoff', data: '{"err":"behind"}', id: undefined },
];

t.test('the events do not depend on where the stream is cut', async (t) => {
  t.same(parse([STREAM]), { events: EXPECTED, comments: 2 }, 'in one chunk');
  t.same(parse([...STREAM]), { events: EXPECTED, comments: 2 }, 'a character at a time');
  let differing = 0;
  for (let cut = 0; cut <= STREAM.length; cut++) {
    for (const second of [cut, Math.min(STREAM.length, cut + 1), Math.min(STREAM.length, cut + 7)]) {
      const got = parse([STREAM.slice(0, cut), STREAM.slice(cut, second), STREAM.slice(second)]);
      if (JSON.stringify(got) !== JSON.stringify({ events: EXPECTED, comments: 2 })) {
        differing++;
        t.same(got, { events: EXPECTED, comments: 2 }, `cut at ${cut} and ${second}`);
      }
    }
  }
  t.equal(differing, 0, `every cut of ${STREAM.length} characters, in three pieces`);
});

t.test('a CR that ends a chunk ends its line at once; an LF that starts the next is the rest of that CRLF', async (t) => {
  const got = parse(['data: one\r', '\ndata: two\r', '\r', '\n', 'data: three\n\n']);
  // `one` and `two` end in CRLF and CR; the lone CR then is a blank line (dispatch), the LF after it another.
  t.same(got.events, [{ event: 'message', data: 'one\ntwo', id: undefined }, { event: 'message', data: 'three', id: undefined }]);
});

t.test('a 32 MiB event in 1 KiB chunks is read whole, in one pass', async (t) => {
  const payload = 'x'.repeat(32 * 1024 * 1024);
  const text = `id: 1\nevent: snapshot\ndata: ${payload}\n\n`;
  const events: SseEvent[] = [];
  const parser = createSseParser((event) => events.push(event), () => undefined);
  let chunks = 0;
  for (let at = 0; at < text.length; at += 1024) {
    parser.push(text.slice(at, at + 1024));
    chunks++;
  }
  t.equal(chunks, 32 * 1024 + 1, 'delivered in 32,769 chunks');
  t.equal(events.length, 1);
  t.equal(events[0]!.data.length, payload.length, 'the data whole');
  t.ok(events[0]!.data === payload, 'and exact');
});
