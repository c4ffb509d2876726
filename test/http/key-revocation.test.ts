/**
 * Black-box: a change stream ends with its key (issue 62 item 2,
 * docs/change-stream.md#a-stream-ends-with-its-key). Revoking an API key ends its open streams on
 * every worker before the revocation answers, and a stream still being
 * opened when the revocation lands is refused: no stream of a revoked key
 * delivers an event after the revocation. The same for the other answers
 * that outlast their check: reads that await work before they answer.
 */
import t from 'tap';
import type { SseEvent } from '../../src/client/local';
import { client, type Client } from '../support/http';
import { forCells } from '../support/matrix';
import { openStream, type StreamReader } from '../support/sse';
import { withNode } from '../support/with-node';

const equals = (field: string, value: string) => ({ field, operator: 'equals', value });

async function evaluateKey(admin: Client, name: string): Promise<{ id: string; key: string }> {
  const answer = await admin.post('/api/api-keys', { name, scopes: ['evaluate'] });
  return { id: answer.json.id, key: answer.json.key };
}

/** Events of a stream at or after `position` (the revocation's): none may come from a revoked key's stream but `revoked` itself. */
const atOrAfter = (stream: StreamReader, position: string) =>
  stream.events.filter((e: SseEvent) => e.id !== undefined && BigInt(e.id) >= BigInt(position));

forCells(t, 'key-revocation', (t, cell) => {
  // No replay window: every write leaves the cached snapshot behind, so each
  // new stream builds its snapshot, in slices, and is still opening meanwhile.
  const live = withNode(t, { cell, env: { RULEVAULT_STREAM_REPLAY_EVENTS: '0', RULEVAULT_STREAM_HEARTBEAT_MS: '50' } });
  const admin = live.admin;

  t.test('revoking a key ends its open streams (on every worker) before it answers; the next write reaches only others', async (t) => {
    const doomed = await evaluateKey(admin, 'doomed');
    const other = await evaluateKey(admin, 'bystander');
    // Four streams, each on its own connection: with workers, node:cluster hands them to both.
    const streams: StreamReader[] = [];
    for (let n = 0; n < 4; n++) {
      const stream = await openStream(live.url, doomed.key);
      t.equal(stream.status, 200);
      await stream.next((e) => e.event === 'snapshot');
      streams.push(stream);
    }
    const bystander = await openStream(live.url, other.key);
    await bystander.next((e) => e.event === 'snapshot');

    const revoked = await admin.delete(`/api/api-keys/${doomed.id}`);
    t.equal(revoked.status, 204);
    const at = revoked.headers.get('rulevault-position')!;
    const later = await admin.post('/api/rule-engine/rules', { name: 'after the revocation', condition_groups: [{ conditions: [equals('n', 'later')] }] });
    t.equal(later.status, 201);
    const laterChange = (e: SseEvent) => e.event === 'change' && e.id === later.json.position;
    await bystander.next(laterChange);
    bystander.close();

    for (const [n, stream] of streams.entries()) {
      const last = await stream.next((e) => e.event === 'revoked' || laterChange(e));
      if (!t.equal(last.event, 'revoked', `stream ${n} ends with revoked, not the next write`)) {
        stream.close();
        continue;
      }
      t.match(JSON.parse(last.data).err, /revoked or no longer has the evaluate scope/);
      await stream.ended;
      t.equal(stream.events[stream.events.length - 1], last, 'and nothing after it');
      t.same(atOrAfter(stream, at), [], 'no event of the revocation or after it');
    }
    const refused = await openStream(live.url, doomed.key);
    t.equal(refused.status, 401, 'the key opens no new stream');
  });

  t.test('a stream opening while its key is revoked never delivers an event after the revocation', async (t) => {
    // Enough rules that building a snapshot takes many slices, with the event loop free between them.
    const rules = Array.from({ length: 8_000 }, (_, n) => JSON.stringify({ kind: 'rule', name: `bulk ${n}`, condition_groups: [{ conditions: [equals('bulk', String(n))] }] }));
    const imported = await admin.post('/api/import', undefined, { raw: rules.join('\n') + '\n', headers: { 'content-type': 'application/x-ndjson' } });
    t.equal(imported.status, 201);

    let raced = 0;
    for (let attempt = 0; attempt < 4; attempt++) {
      const doomed = await evaluateKey(admin, `opening ${attempt}`);
      const opening = openStream(live.url, doomed.key);
      // A nudge so the stream's request is read first (the assertions below hold whatever the order).
      await new Promise((resolve) => setTimeout(resolve, 5));
      const revoked = await admin.delete(`/api/api-keys/${doomed.id}`);
      t.equal(revoked.status, 204);
      const at = revoked.headers.get('rulevault-position')!;
      const stream = await opening;
      const later = await admin.post('/api/rule-engine/rules', { name: `after ${attempt}`, condition_groups: [{ conditions: [equals('n', `after ${attempt}`)] }] });
      if (stream.status === 200) {
        // Opened before the revocation applied: it must end there.
        const last = await stream.next((e) => e.event === 'revoked' || e.id === later.json.position);
        if (!t.equal(last.event, 'revoked', `attempt ${attempt}: opened first, then ended by the revocation`)) {
          stream.close();
          continue;
        }
        await stream.ended;
        t.same(atOrAfter(stream, at), [], 'no event of the revocation or after it');
        continue;
      }
      t.equal(stream.status, 401, `attempt ${attempt}: refused`);
      const { err } = JSON.parse(stream.text);
      if (/revoked .*while the stream was opening/.test(err)) raced++;
      else t.match(err, /invalid or has been revoked/, 'or refused at once, its key already revoked');
    }
    // The point of the test: a stream whose key was checked, then revoked while its snapshot was built.
    t.ok(raced > 0, `refused at its opening, its key revoked meanwhile, in ${raced} of 4 attempts`);
  });

  t.test('a read that awaits work answers a key revoked meanwhile with 401, not the data', async (t) => {
    // The rules imported above make these reads take slices (a sort, a log read, time travel's fold).
    let withheld = 0;
    let answered = 0;
    for (let attempt = 0; attempt < 4; attempt++) {
      const created = await admin.post('/api/api-keys', { name: `auditor ${attempt}`, scopes: ['admin'] });
      const auditor = client(live.url, created.json.key);
      const head = (await admin.get('/readyz')).json.position as string;
      const reads = [
        auditor.post('/api/audit/evaluate', { entity_type: 'context', fields: { bulk: '7' }, as_of: String(BigInt(head) - BigInt(attempt)) }),
        auditor.get('/api/audit/events?limit=1000'),
        auditor.get('/api/audit/digest'),
        auditor.get(`/api/rule-engine/rules?limit=${100 + attempt}`),
      ];
      await new Promise((resolve) => setTimeout(resolve, 5));
      t.equal((await admin.delete(`/api/api-keys/${created.json.id}`)).status, 204);
      for (const answer of await Promise.all(reads)) {
        if (answer.status === 200) {
          answered++;
          continue;
        }
        t.equal(answer.status, 401, 'a read either answered before the revocation or is refused');
        t.equal(answer.json.code, 'unauthorized');
        t.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
        if (answer.json.err === 'the API key was revoked while the request ran: its answer is withheld') withheld++;
        else t.equal(answer.json.err, 'the API key is invalid or has been revoked', 'or it came after the revocation');
      }
    }
    t.ok(withheld > 0, `withheld ${withheld} answers computed for a key revoked meanwhile (${answered} answered before)`);
  });
});
