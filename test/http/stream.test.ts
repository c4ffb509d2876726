/**
 * Black-box: GET /api/rule-engine/stream (issue 16 item 3,
 * docs/change-stream.md): the snapshot shows exactly what decides evaluate,
 * every write follows with its log position as the event id, a resume from
 * Last-Event-ID has no gap and no duplicate, heartbeats, a slow consumer is cut
 * off and resumes, shutdown ends streams; and admin writes carry
 * RuleVault-Position.
 */
import { connect } from 'node:net';
import t, { type Test } from 'tap';
import type { SseEvent } from '../../src/client/local';
import { createSseParser } from '../../src/client/local';
import { client, createRule, type Client } from '../support/http';
import { cellEnv, forCells, SQLITE } from '../support/matrix';
import { removeDir, startTestNode, tempDir, testEnv } from '../support/node';
import { sendRaw } from '../support/raw-http';
import { openStream } from '../support/sse';
import { withNode } from '../support/with-node';

const equals = (field: string, value: string) => ({ field, operator: 'equals', value });
const isChange = (id: string) => (event: SseEvent) => event.event === 'change' && event.id === id;
const data = (event: SseEvent) => JSON.parse(event.data);

async function keyWith(admin: Client, scopes: string[]): Promise<string> {
  const answer = await admin.post('/api/api-keys', { name: `stream ${scopes.join(' ')}`, scopes });
  return answer.json.key;
}

forCells(t, 'stream', (t, cell) => {
  const live = withNode(t, {
    cell,
    env: { RULEVAULT_STREAM_HEARTBEAT_MS: '50', RULEVAULT_STREAM_REPLAY_EVENTS: '4', RULEVAULT_STREAM_MAX_BUFFER_BYTES: '1024' },
  });
  const admin = live.admin;
  let key: string;
  t.before(async () => {
    key = await keyWith(admin, ['evaluate']);
  });

  // First, while no stream has been opened on this node (or on any of its workers).
  t.test('a resume replays changes made before the node had any subscriber', async (t) => {
    const ready = (await admin.get('/readyz')).json.position;
    const made: string[] = [];
    for (const n of [1, 2]) {
      made.push((await admin.post('/api/rule-engine/rules', { name: `early ${n}`, condition_groups: [{ conditions: [equals('early', String(n))] }] })).json.position);
    }
    const resumed = await openStream(live.url, key, { 'last-event-id': ready });
    await resumed.next((e) => e.event === 'snapshot' || isChange(made[1]!)(e));
    t.same(resumed.events.map((e) => `${e.event}#${e.id}`), made.map((p) => `change#${p}`), 'exactly the changes after the position, no snapshot');
    resumed.close();
  });

  t.test('scope evaluate; a bad Last-Event-ID is a 400 naming the header', async (t) => {
    const none = await openStream(live.url, undefined);
    t.equal(none.status, 401);
    t.match(JSON.parse(none.text).err, /no API key/i);
    const secretsOnly = await openStream(live.url, await keyWith(admin, ['secrets:read']));
    t.equal(secretsOnly.status, 403);
    const bad = await openStream(live.url, key, { 'last-event-id': 'yesterday' });
    t.equal(bad.status, 400);
    t.match(JSON.parse(bad.text).err, /Last-Event-ID must be a log position/);
  });

  t.test('HEAD answers at once what GET would, with no body', async (t) => {
    const head = (headers: Record<string, string>) => sendRaw(live.url, { method: 'HEAD', path: '/api/rule-engine/stream', headers });
    const ok = await head({ authorization: `Bearer ${key}` });
    t.notOk(ok.hung, 'answered, not left open');
    t.equal(ok.status, 200);
    t.match(ok.headers['content-type'], /^text\/event-stream/);
    t.equal(ok.headers['cache-control'], 'no-store');
    t.equal(ok.text, '');
    t.equal((await head({})).status, 401, 'no key');
    t.equal((await head({ authorization: `Bearer ${await keyWith(admin, ['secrets:read'])}` })).status, 403, 'no evaluate scope');
    t.equal((await head({ authorization: `Bearer ${key}`, 'last-event-id': 'yesterday' })).status, 400, 'a bad Last-Event-ID');
    const slash = await sendRaw(live.url, { method: 'HEAD', path: '/api/rule-engine/stream/', headers: { authorization: `Bearer ${key}` } });
    t.same([slash.hung, slash.status], [false, 200], 'with a trailing slash too');
  });

  t.test('the snapshot holds the active rules and the active entities they link, nothing else', async (t) => {
    const linked = (await admin.post('/api/contexts', { name: 'linked', content: 'shown' })).json.id;
    const unlinked = (await admin.post('/api/contexts', { name: 'unlinked', content: 'not shown' })).json.id;
    const inactive = (await admin.post('/api/contexts', { name: 'inactive', content: 'not shown', status: 'INACTIVE' })).json.id;
    const hidden = (await admin.post('/api/contexts', { name: 'only under an inactive rule', content: 'not shown' })).json.id;
    const active = await createRule(admin, {
      condition_groups: [{ conditions: [equals('tier', 'gold')] }],
      entities: [{ entity_type: 'context', entity_id: linked }, { entity_type: 'context', entity_id: inactive }],
    });
    const off = await createRule(admin, {
      status: 'INACTIVE', condition_groups: [{ conditions: [equals('tier', 'gold')] }], entities: [{ entity_type: 'context', entity_id: hidden }],
    });
    await admin.post('/api/vault/secrets', { key: 'STREAM_SECRET', value: 'never on the stream' });
    const ready = await admin.get('/readyz');

    const stream = await openStream(live.url, key);
    t.equal(stream.status, 200);
    t.match(stream.headers.get('content-type'), /^text\/event-stream/);
    const snapshot = await stream.next((e) => e.event === 'snapshot');
    stream.close();
    const body = data(snapshot);
    // The first snapshot this node builds (no stream before this one asked for one): at the node's position.
    t.equal(snapshot.id, ready.json.position, 'the snapshot\'s id is the log position it shows');
    t.equal(body.position, ready.json.position);
    const ruleIds = body.rules.map((r: { id: string }) => r.id);
    t.ok(ruleIds.includes(active));
    t.notOk(ruleIds.includes(off), 'an inactive rule is not shown');
    const contextIds = body.contexts.map((c: { id: string }) => c.id);
    t.ok(contextIds.includes(linked));
    for (const id of [unlinked, inactive, hidden]) t.notOk(contextIds.includes(id), 'unlinked or inactive entities are not shown');
    t.notOk(snapshot.data.includes('never on the stream'), 'no secret');
    t.notOk(snapshot.data.includes('STREAM_SECRET'), 'no secret key');
    t.equal(body.limits.maxFields, 256, 'the limits evaluate applies');
  });

  t.test('every write follows with its position as the id; admin writes carry RuleVault-Position', async (t) => {
    const stream = await openStream(live.url, key);
    await stream.next((e) => e.event === 'snapshot');
    const created = await admin.post('/api/rule-engine/rules', { name: 'streamed', condition_groups: [{ conditions: [equals('a', '1')] }] });
    t.equal(created.status, 201);
    const position = created.headers.get('rulevault-position');
    t.equal(position, created.json.position, 'the header is the write\'s position');
    const change = await stream.next(isChange(position!));
    t.same(data(change).upsert.rules.map((r: { id: string }) => r.id), [created.json.id]);

    const deleted = await admin.delete(`/api/rule-engine/rules/${created.json.id}`);
    t.equal(deleted.status, 204);
    const after = deleted.headers.get('rulevault-position')!;
    t.ok(BigInt(after) > BigInt(position!), 'a 204 carries the position too');
    const removal = await stream.next(isChange(after));
    t.same(data(removal).remove.rules, [created.json.id]);

    // A write nothing on the stream depends on still moves the position (waitFor must see it).
    const secret = await admin.post('/api/vault/secrets', { key: 'STREAM_SECRET_2', value: 'still not shown' });
    const idle = await stream.next(isChange(secret.headers.get('rulevault-position')!));
    t.same(data(idle), { position: secret.json.position });
    const ids = stream.events.filter((e) => e.event === 'change').map((e) => e.id);
    t.same(ids, [position, after, secret.json.position], 'one event per write, in log order');
    stream.close();
  });

  t.test('resumes from Last-Event-ID without a gap or a duplicate; an older position gets a snapshot', async (t) => {
    // A fresh stream opens with a snapshot, then the changes after it (a snapshot built earlier serves while the node still holds
    // the changes since): it has reached the node's position once it sent an event with that id.
    const at = (await admin.get('/readyz')).json.position as string;
    const first = await openStream(live.url, key);
    t.equal((await first.next(() => true)).event, 'snapshot', 'a fresh stream starts with a snapshot');
    const snapshot = await first.next((e) => e.id === at);
    first.close();
    const made: string[] = [];
    for (const n of [1, 2, 3]) {
      const answer = await admin.post('/api/rule-engine/rules', { name: `resume ${n}`, condition_groups: [{ conditions: [equals('n', String(n))] }] });
      made.push(answer.json.position);
    }
    // Several resumes, each on its own connection: with workers they land on each of them, and every one kept the changes.
    for (let n = 0; n < 4; n++) {
      const resumed = await openStream(live.url, key, { 'last-event-id': snapshot.id! });
      await resumed.next((e) => e.event === 'snapshot' || isChange(made[2]!)(e));
      t.same(resumed.events.map((e) => `${e.event}#${e.id}`), made.map((p) => `change#${p}`), 'exactly the missed changes, no snapshot');
      resumed.close();
    }

    const current = await openStream(live.url, key, { 'last-event-id': made[2]! });
    const next = await admin.post('/api/rule-engine/rules', { name: 'resume 4', condition_groups: [{ conditions: [equals('n', '4')] }] });
    await current.next(isChange(next.json.position));
    t.same(current.events.map((e) => e.id), [next.json.position], 'resuming at the head sends nothing twice');
    current.close();

    // The node keeps 4 changes (RULEVAULT_STREAM_REPLAY_EVENTS=4): five more writes put the first snapshot out of reach.
    for (const n of [5, 6, 7, 8, 9]) await admin.post('/api/rule-engine/rules', { name: `resume ${n}`, condition_groups: [{ conditions: [equals('n', String(n))] }] });
    const old = await openStream(live.url, key, { 'last-event-id': snapshot.id! });
    const fresh = await old.next(() => true);
    t.equal(fresh.event, 'snapshot', 'too old to replay: a fresh snapshot');
    const now = (await admin.get('/readyz')).json.position as string;
    await old.next((e) => e.id === now);
    t.ok(old.events.every((e, i) => i === 0 || (e.event === 'change' && BigInt(e.id!) > BigInt(old.events[i - 1]!.id!))), 'then the changes after it, in order');
    old.close();
    const future = await openStream(live.url, key, { 'last-event-id': '999999999999' });
    t.equal((await future.next(() => true)).event, 'snapshot', 'a position this node has not reached: a snapshot');
    future.close();
  });

  t.test('a changed prompt goes as a patch of what changed to a client that asks (?changes=patch), whole to one that does not', async (t) => {
    const prompt = (await admin.post('/api/prompts', { name: 'versioned', prompt: 'one {{name}}' })).json.id;
    await createRule(admin, { name: 'links versioned', condition_groups: [{ conditions: [equals('versioned', 'yes')] }], entities: [{ entity_type: 'prompt', entity_id: prompt }] });
    const from = (await admin.get('/readyz')).json.position as string;
    const patching = await openStream(live.url, key, { 'last-event-id': from }, '?changes=patch');
    const whole = await openStream(live.url, key, { 'last-event-id': from });
    const made: string[] = [];
    for (const text of ['two {{name}}', 'three {{name}}']) made.push((await admin.post(`/api/prompts/${prompt}/versions`, { prompt: text })).json.position);
    for (const [n, position] of made.entries()) {
      const patch = data(await patching.next(isChange(position)));
      t.same(Object.keys(patch), ['position', 'patch'], 'only a patch');
      const [entry] = patch.patch.prompts;
      t.equal(entry.id, prompt);
      t.notOk('versions' in entry, 'not the versions it had');
      t.same(entry.versions_added.map((v: { template: string }) => v.template), [['two {{name}}', 'three {{name}}'][n]], 'the version added');
      const record = data(await whole.next(isChange(position))).upsert.prompts[0];
      t.equal(record.versions.length, n + 2, 'the records format sends the prompt whole, as before');
    }
    patching.close();
    whole.close();

    // The window holds patches: a resume in the patch format replays them, one in the records format gets a snapshot.
    const resumedPatch = await openStream(live.url, key, { 'last-event-id': from }, '?changes=patch');
    await resumedPatch.next((e) => e.event === 'snapshot' || isChange(made[1]!)(e));
    t.same(resumedPatch.events.map((e) => `${e.event}#${e.id}`), made.map((p) => `change#${p}`), 'patch format: exactly the missed changes');
    resumedPatch.close();
    const resumedWhole = await openStream(live.url, key, { 'last-event-id': from });
    t.equal((await resumedWhole.next(() => true)).event, 'snapshot', 'records format: a snapshot instead of replayed patches');
    resumedWhole.close();

    const bad = await openStream(live.url, key, {}, '?changes=deltas');
    t.equal(bad.status, 400);
    t.same(JSON.parse(bad.text), { err: 'changes must be records or patch', code: 'bad_request' });
    t.equal((await openStream(live.url, key, {}, '?changes=patch&changes=records')).status, 400, 'given twice');
  });

  t.test('heartbeats are comment lines', async (t) => {
    const stream = await openStream(live.url, key);
    await stream.next((e) => e.event === 'snapshot');
    await stream.nextHeartbeat();
    await stream.nextHeartbeat();
    t.ok(stream.heartbeats >= 2, 'heartbeats keep coming (RULEVAULT_STREAM_HEARTBEAT_MS=50 here)');
    stream.close();
  });

  t.test('a slow consumer is cut off with a message after a bounded buffer, and resumes', async (t) => {
    const context = (await admin.post('/api/contexts', { name: 'big', content: 'x' })).json.id;
    await createRule(admin, { name: 'links big', condition_groups: [{ conditions: [equals('big', 'yes')] }], entities: [{ entity_type: 'context', entity_id: context }] });
    const { hostname: host, port } = new URL(live.url);
    // A raw socket that stops reading: what the server writes piles up in the kernel, then in the response.
    const socket = connect(Number(port), host);
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(`GET /api/rule-engine/stream HTTP/1.1\r\nHost: ${host}:${port}\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const closed = new Promise((resolve) => socket.once('close', resolve));
    await new Promise((resolve) => setTimeout(resolve, 100));
    socket.pause();
    let last = '';
    for (let n = 0; n < 25; n++) {
      const answer = await admin.patch(`/api/contexts/${context}`, { content: `${n}`.padEnd(500_000, '.') });
      t.equal(answer.status, 200);
      last = answer.json.position;
    }
    socket.resume();
    await closed;
    const events: SseEvent[] = [];
    const text = Buffer.concat(received).toString('utf8');
    const body = text.slice(text.indexOf('\r\n\r\n') + 4);
    // Chunked transfer encoding: frames are whole within the chunks the parser sees once the sizes are dropped.
    createSseParser((event) => events.push(event), () => undefined).push(body.replace(/\r\n[0-9a-f]+\r\n/g, ''));
    const final = events[events.length - 1]!;
    t.equal(final.event, 'cutoff', 'the last event says why');
    t.match(JSON.parse(final.data).err, /fell too far behind.*Last-Event-ID/);
    const got = events.filter((e) => e.event === 'change' || e.event === 'snapshot');
    t.ok(got.length < 26, 'it was cut off before it got everything');

    const resumed = await openStream(live.url, key, { 'last-event-id': got[got.length - 1]!.id! });
    const head = await resumed.next((e) => e.id === last);
    resumed.close();
    const content = head.event === 'snapshot'
      ? data(head).contexts.find((c: { id: string }) => c.id === context).content
      : data(head).upsert.contexts[0].content;
    t.equal(content, '24'.padEnd(500_000, '.'), 'the resumed stream reaches the last write');
  });
});

/** A node of its own on sqlite with `env`, stopped when `t` ends; its admin client and an evaluate key. */
async function ownNode(t: Test, env: Record<string, string>) {
  const full = testEnv(tempDir(), { ...cellEnv(SQLITE), ...env });
  const node = await startTestNode(full);
  t.teardown(async () => {
    await node.stop();
    removeDir(full.RULEVAULT_DATA_DIR!);
  });
  const admin = client(node.url, node.adminKey);
  return { node, admin, key: await keyWith(admin, ['evaluate']) };
}

t.test('graceful shutdown ends every stream with a message', async (t) => {
  const env = testEnv(tempDir(), cellEnv(SQLITE));
  const node = await startTestNode(env);
  t.teardown(() => removeDir(env.RULEVAULT_DATA_DIR!));
  const stream = await openStream(node.url, await keyWith(client(node.url, node.adminKey), ['evaluate']));
  t.equal(stream.status, 200);
  await stream.next((e) => e.event === 'snapshot');
  await node.stop();
  await stream.ended;
  const final = stream.events[stream.events.length - 1]!;
  t.equal(final.event, 'shutdown');
  t.match(JSON.parse(final.data).err, /shutting down/);
});

t.test('a snapshot over RULEVAULT_STREAM_MAX_SNAPSHOT_BYTES is a 503 naming it; the node goes on; a resume it can serve is not refused', async (t) => {
  const { node, admin, key } = await ownNode(t, { RULEVAULT_STREAM_MAX_SNAPSHOT_BYTES: '2048' });
  let position = '';
  for (let n = 0; n < 10; n++) {
    const created = await admin.post('/api/rule-engine/rules', { name: `bulky ${n}`, description: 'x'.repeat(300), condition_groups: [{ conditions: [equals('n', String(n))] }] });
    position = created.json.position;
  }
  const refused = await openStream(node.url, key);
  t.equal(refused.status, 503);
  const body = JSON.parse(refused.text);
  t.equal(body.code, 'unavailable');
  t.match(body.err, /RULEVAULT_STREAM_MAX_SNAPSHOT_BYTES \(2048 bytes\).*call POST \/api\/rule-engine\/evaluate/);
  t.equal((await admin.get('/healthz')).status, 200, 'the node goes on');
  const resumed = await openStream(node.url, key, { 'last-event-id': position });
  t.equal(resumed.status, 200, 'at the head: no snapshot needed');
  const next = await admin.post('/api/rule-engine/rules', { name: 'after', condition_groups: [{ conditions: [equals('n', 'after')] }] });
  t.equal((await resumed.next(isChange(next.json.position))).event, 'change', 'and follows the writes');
  resumed.close();
});

t.test('the resume window is bounded in bytes (RULEVAULT_STREAM_REPLAY_BYTES), with no subscriber, and says so in /metrics', async (t) => {
  const replayBytes = 2 * 1024 * 1024;
  const { node, admin, key } = await ownNode(t, { RULEVAULT_STREAM_REPLAY_BYTES: String(replayBytes) });
  // The case, smaller: a 500 KiB context linked by an active rule, edited again and again with no stream open.
  const context = (await admin.post('/api/contexts', { name: 'large', content: 'x' })).json.id;
  await createRule(admin, { name: 'links large', condition_groups: [{ conditions: [equals('large', 'yes')] }], entities: [{ entity_type: 'context', entity_id: context }] });
  const before = (await admin.get('/readyz')).json.position as string;
  const held = async () => {
    const text = (await admin.get('/metrics')).text;
    return { bytes: Number(/^rulevault_stream_replay_bytes (\d+)$/m.exec(text)?.[1]), events: Number(/^rulevault_stream_replay_events (\d+)$/m.exec(text)?.[1]) };
  };
  let most = 0;
  for (let n = 0; n < 30; n++) {
    t.equal((await admin.patch(`/api/contexts/${context}`, { content: `${n}`.padEnd(500 * 1024, '.') })).status, 200);
    most = Math.max(most, (await held()).bytes);
  }
  t.ok(most > replayBytes / 2 && most <= replayBytes, `the window held at most its bound (${most} of ${replayBytes} bytes)`);
  const { events } = await held();
  t.ok(events >= 3 && events < 5, `about 4 edits of 500 KiB fit, not 30 (${events})`);

  const resumed = await openStream(node.url, key, { 'last-event-id': before });
  t.equal((await resumed.next(() => true)).event, 'snapshot', 'a resume from before the edits the window let go gets a snapshot');
  resumed.close();
});

t.test('120 versions of a prompt: the window holds each version once, not every version per change', async (t) => {
  const { admin } = await ownNode(t, {});
  const template = (n: number) => `version ${n} {{name}} `.padEnd(8 * 1024, '.');
  const prompt = (await admin.post('/api/prompts', { name: 'long history', prompt: template(0) })).json.id;
  await createRule(admin, { name: 'links long history', condition_groups: [{ conditions: [equals('history', 'yes')] }], entities: [{ entity_type: 'prompt', entity_id: prompt }] });
  for (let n = 1; n <= 120; n++) t.equal((await admin.post(`/api/prompts/${prompt}/versions`, { prompt: template(n) })).status, 201);
  const text = (await admin.get('/metrics')).text;
  const bytes = Number(/^rulevault_stream_replay_bytes (\d+)$/m.exec(text)?.[1]);
  const events = Number(/^rulevault_stream_replay_events (\d+)$/m.exec(text)?.[1]);
  t.ok(events >= 122, `every change is kept (${events})`);
  // Whole records would be 120 x 61 versions x 8 KiB on average, ~60 MB (the window's bound would cut them to 16 MiB).
  t.ok(bytes < 122 * 9 * 1024, `each change holds its own version: ${bytes} bytes for 120 versions of 8 KiB`);
});
