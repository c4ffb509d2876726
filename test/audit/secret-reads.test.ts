/**
 * Black-box: the secret-read audit (docs/auditors.md#secret-reads) on a
 * real node over loopback with the sink's real SQLite files: what a read
 * records (never a value: the files are grepped for the plaintext), the
 * list's filters and paging on the admin API and the CLI, and fail-closed
 * reads when the sink cannot be written.
 */
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { client, type Client } from '../support/http';
import type { TestNode } from '../support/node';
import { nodeWith, sinkBytes } from './support/sink';
import { runAudit } from './support/run-audit';

const VALUES = { OPENAI_API_KEY: 'sk-plaintext-openai-5f3a9c', DB_PASSWORD: 'plaintext-db-password-77e1' } as const;

async function setUp(node: TestNode) {
  const admin = client(node.url, node.adminKey);
  const openai = (await admin.post('/api/vault/secrets', { key: 'OPENAI_API_KEY', value: VALUES.OPENAI_API_KEY, tags: ['llm'] })).json;
  const db = (await admin.post('/api/vault/secrets', { key: 'DB_PASSWORD', value: VALUES.DB_PASSWORD, tags: ['db'] })).json;
  const all = (await admin.post('/api/api-keys', { name: 'all', scopes: ['secrets:read'] })).json;
  const llm = (await admin.post('/api/api-keys', { name: 'llm only', scopes: ['secrets:read'], secret_tags: ['llm'] })).json;
  return { admin, openai, db, all, llm };
}

async function read(reader: Client, body: unknown, requestId?: string) {
  const answer = await reader.post('/api/vault/get-secrets', body, requestId === undefined ? {} : { headers: { 'x-request-id': requestId } });
  return answer.json;
}

t.test('each read is recorded with key id, request id, time, secret ids and versions; never a value', async (t) => {
  const node = await nodeWith(t);
  const { admin, openai, db, all, llm } = await setUp(node);
  const allReader = client(node.url, all.key);
  const llmReader = client(node.url, llm.key);
  const before = new Date().toISOString();

  t.same((await read(allReader, {}, 'req-all-1')).res, VALUES);
  t.same((await read(llmReader, {})).res, { OPENAI_API_KEY: VALUES.OPENAI_API_KEY });
  t.same((await read(allReader, { key: 'DB_PASSWORD' }, 'req-db-1')).res, { DB_PASSWORD: VALUES.DB_PASSWORD });
  t.equal((await read(llmReader, { key: 'DB_PASSWORD' })).code, 'not_found', 'a key lookup that finds nothing is recorded too');
  // A new value is a new version: the record says which one was read.
  await admin.patch(`/api/vault/secrets/${db.id}`, { value: 'plaintext-db-password-v2-0c4d' });
  await read(allReader, { key: 'DB_PASSWORD' });

  const list = await admin.get('/api/audit/secret-reads');
  t.equal(list.status, 200, list.text);
  const reads = list.json.reads;
  t.equal(reads.length, 5);
  t.equal(list.json.next_cursor, null);
  t.same(reads.map((r: any) => r.key_id), [all.id, llm.id, all.id, llm.id, all.id]);
  t.same(reads.map((r: any) => r.request_id), ['req-all-1', reads[1].request_id, 'req-db-1', reads[3].request_id, reads[4].request_id]);
  t.match(reads[1].request_id, /^[0-9a-f-]{36}$/, 'a minted request id when the caller sent none');
  t.same(reads[0].secrets.map((s: any) => s.id).sort(), [openai.id, db.id].sort());
  t.same(reads[0].secrets.find((s: any) => s.id === db.id), { id: db.id, key: 'DB_PASSWORD', version: 1, value_version: 1 });
  t.same(reads[3].secrets, []);
  t.same(reads.map((r: any) => [r.outcome, r.code]), [['ok', null], ['ok', null], ['ok', null], ['error', 'not_found'], ['ok', null]]);
  t.same(reads[4].secrets, [{ id: db.id, key: 'DB_PASSWORD', version: 2, value_version: 2 }]);
  for (const r of reads) t.ok(r.at >= before && r.at <= new Date().toISOString(), 'the time of the read');

  const bytes = sinkBytes(node);
  t.ok(bytes.includes('OPENAI_API_KEY') && bytes.includes(openai.id), 'the grep sees what the sink holds');
  for (const value of [...Object.values(VALUES), 'plaintext-db-password-v2-0c4d']) t.notOk(bytes.includes(value), 'no value in any sink file');
  t.notOk(list.text.includes(VALUES.DB_PASSWORD) || list.text.includes(VALUES.OPENAI_API_KEY), 'none in the list either');
});

t.test('the list: filters by key, by secret (id or key), by outcome and by time; cursor paging; bad parameters', async (t) => {
  const node = await nodeWith(t);
  const { admin, openai, all, llm } = await setUp(node);
  const allReader = client(node.url, all.key);
  const llmReader = client(node.url, llm.key);
  for (let i = 0; i < 3; i++) await read(allReader, { key: 'DB_PASSWORD' });
  for (let i = 0; i < 4; i++) await read(llmReader, {});
  await read(allReader, {});
  const everything = (await admin.get('/api/audit/secret-reads')).json.reads;
  t.equal(everything.length, 8);

  const byKey = (await admin.get(`/api/audit/secret-reads?key_id=${llm.id}`)).json.reads;
  t.equal(byKey.length, 4);
  t.ok(byKey.every((r: any) => r.key_id === llm.id));
  const bySecretKey = (await admin.get('/api/audit/secret-reads?secret=DB_PASSWORD')).json.reads;
  t.equal(bySecretKey.length, 4, 'three reads by key and the read of everything');
  const bySecretId = (await admin.get(`/api/audit/secret-reads?secret=${openai.id}`)).json.reads;
  t.equal(bySecretId.length, 5);
  const both = (await admin.get(`/api/audit/secret-reads?secret=DB_PASSWORD&key_id=${llm.id}`)).json.reads;
  t.same(both, [], 'filters combine with AND');

  const middle = everything[4].at;
  const from = (await admin.get(`/api/audit/secret-reads?from=${encodeURIComponent(middle)}`)).json.reads;
  t.ok(from.length >= 4 && from.every((r: any) => r.at >= middle));
  const to = (await admin.get(`/api/audit/secret-reads?to=${encodeURIComponent(middle)}`)).json.reads;
  t.ok(to.length >= 5 && to.every((r: any) => r.at <= middle));
  t.equal(from.length + to.length - everything.filter((r: any) => r.at === middle).length, 8, 'from and to are inclusive');
  const future = (await admin.get(`/api/audit/secret-reads?from=${encodeURIComponent(new Date(Date.now() + 3_600_000).toISOString())}`)).json;
  t.same(future, { reads: [], next_cursor: null });

  // Pages of 3: each read once, in order, and the last page says it is the last.
  const walked: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const page: any = (await admin.get(`/api/audit/secret-reads?limit=3${cursor === null ? '' : `&cursor=${cursor}`}`)).json;
    t.ok(page.reads.length > 0 && page.reads.length <= 3);
    walked.push(...page.reads.map((r: any) => r.read_id));
    cursor = page.next_cursor;
    pages += 1;
  } while (cursor !== null);
  t.equal(pages, 3);
  t.same(walked, everything.map((r: any) => r.read_id));
  const filteredPage = (await admin.get(`/api/audit/secret-reads?key_id=${llm.id}&limit=2`)).json;
  const filteredNext = (await admin.get(`/api/audit/secret-reads?key_id=${llm.id}&limit=2&cursor=${filteredPage.next_cursor}`)).json;
  t.same([...filteredPage.reads, ...filteredNext.reads].map((r: any) => r.read_id), byKey.map((r: any) => r.read_id));
  t.equal(filteredNext.next_cursor, null);

  for (const [query, message] of [
    ['limit=0', /^limit must be/], ['limit=1001', /^limit must be/], ['from=yesterday', /^from must be an ISO 8601 time/],
    ['to=2026-01-01', /^to must be an ISO 8601 time/], ['cursor=abc', /^cursor is not a cursor of this list/], ['secret=', /^secret must be/],
    ['reader=x', /unknown query parameter "reader"/],
  ] as const) {
    const answer = await admin.get(`/api/audit/secret-reads?${query}`);
    t.equal(answer.status, 400, query);
    t.equal(answer.json.code, 'bad_request');
    t.match(answer.json.err, message, query);
  }
  const rulesCursor = (await admin.get('/api/rule-engine/rules?limit=1')).json.next_cursor;
  if (rulesCursor !== null) t.equal((await admin.get(`/api/audit/secret-reads?cursor=${rulesCursor}`)).status, 400);
  t.equal((await allReader.get('/api/audit/secret-reads')).status, 403, 'scope admin');

  // The CLI lists the same sink, beside the running service.
  const cli = await runAudit(['reads', '--secret', 'DB_PASSWORD', '--json'], node.env);
  t.equal(cli.code, 0, cli.stderr);
  t.same(JSON.parse(cli.stdout), { reads: bySecretKey, next_cursor: null });
  const cliPage = await runAudit(['reads', '--key-id', llm.id, '--limit', '3'], node.env);
  t.equal(cliPage.code, 0, cliPage.stderr);
  t.match(cliPage.stdout, /OPENAI_API_KEY@1/);
  t.match(cliPage.stdout, /more: --cursor \S+/);
  const cliBad = await runAudit(['reads', '--from', 'yesterday'], node.env);
  t.equal(cliBad.code, 1);
  t.match(cliBad.stderr, /--from must be an ISO 8601 time/);

  // --outcome lists what the API's outcome filter lists: here two refused calls, then the eight answered reads.
  await read(client(node.url, 'rv_not-a-key-of-this-node'), {});
  await read(allReader, { key: 'NO_SUCH_KEY' });
  const refused = (await admin.get('/api/audit/secret-reads?outcome=error')).json;
  t.same(refused.reads.map((r: any) => [r.key_id, r.code]), [[null, 'unauthorized'], [all.id, 'not_found']]);
  const cliRefused = await runAudit(['reads', '--outcome', 'error', '--json'], node.env);
  t.equal(cliRefused.code, 0, cliRefused.stderr);
  t.same(JSON.parse(cliRefused.stdout), refused, 'audit reads --outcome error');
  const cliRefusedTable = await runAudit(['reads', '--outcome', 'error'], node.env);
  t.match(cliRefusedTable.stdout, /\(none\) +\S+ +unauthorized /, 'the table shows the code');
  const cliOk = await runAudit(['reads', '--outcome', 'ok', '--json'], node.env);
  t.same(JSON.parse(cliOk.stdout).reads.map((r: any) => r.read_id), everything.map((r: any) => r.read_id), 'audit reads --outcome ok');
  const cliOutcomeBad = await runAudit(['reads', '--outcome', 'refused'], node.env);
  t.equal(cliOutcomeBad.code, 1);
  t.match(cliOutcomeBad.stderr, /^error: --outcome must be one of ok, error/);
});

t.test('fail-closed: a read whose record cannot be written answers an error, not the values', async (t) => {
  const node = await nodeWith(t, { RULEVAULT_READ_AUDIT_FAIL_CLOSED: '1' });
  const { admin, all } = await setUp(node);
  const reader = client(node.url, all.key);
  t.same((await read(reader, {})).res, VALUES, 'with the sink writable the read answers');
  t.equal((await admin.get('/api/audit/secret-reads')).json.reads.length, 1, 'recorded before it answered');

  const auditDir = path.join(node.dataDir, 'audit');
  rmSync(auditDir, { recursive: true, force: true });
  const refused = await reader.post('/api/vault/get-secrets', {});
  t.equal(refused.status, 200, 'get-secrets answers 200 (contract §1.2)');
  t.equal(refused.json.res, null);
  t.equal(refused.json.code, 'unavailable');
  t.match(refused.json.err, /read audit could not be written/);
  for (const value of Object.values(VALUES)) t.notOk(refused.text.includes(value), 'no value in the refusal');
  const metrics = (await admin.get('/metrics')).text;
  t.match(metrics, /rulevault_audit_sink_write_errors_total\{sink="secret-reads"\} [1-9]/);

  // The operator puts the folder back: reads are recorded (in a fresh file) and answered again.
  mkdirSync(auditDir);
  t.same((await read(reader, { key: 'DB_PASSWORD' })).res, { DB_PASSWORD: VALUES.DB_PASSWORD });
  const after = (await admin.get('/api/audit/secret-reads')).json.reads;
  // The refused read is recorded too (queued: it answered no value, so nothing waited for its record).
  t.same(after.map((r: any) => [r.outcome, r.code, r.secrets.map((s: any) => s.key)]).sort(), [['error', 'unavailable', []], ['ok', null, ['DB_PASSWORD']]]);
});

t.test('fail-open (the default): a read answers when the sink cannot be written, and the failure is counted', async (t) => {
  const node = await nodeWith(t);
  const { admin, all } = await setUp(node);
  const reader = client(node.url, all.key);
  await read(reader, {});
  t.equal((await admin.get('/api/audit/secret-reads')).json.reads.length, 1);
  rmSync(path.join(node.dataDir, 'audit'), { recursive: true, force: true });
  t.same((await read(reader, {})).res, VALUES);
  // The record stays queued and its write is retried; the list (which writes the queue first) counts the failure.
  t.same((await admin.get('/api/audit/secret-reads')).json, { reads: [], next_cursor: null });
  t.match((await admin.get('/metrics')).text, /rulevault_audit_sink_write_errors_total\{sink="secret-reads"\} [1-9]/);
});
