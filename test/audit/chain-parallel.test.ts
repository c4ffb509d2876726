/**
 * The embedded store's verify on several threads (chain-verify-sqlite.ts):
 * on a real SQLite file with erasures, signed checkpoints and a key rotation
 * spread over several ranges, it must give exactly the report of the
 * event-by-event verifier, whether the log is sound or tampered with (then
 * the second pass names the break); and each range's row check must accept a
 * sound log on its own (so the fast path is what answered).
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { writeCheckpoint } from '../../src/audit/chain-checkpoint';
import { checkRange, openForVerify } from '../../src/audit/chain-range-read';
import { verifyChain, type VerifyOptions } from '../../src/audit/chain-verify';
import { cut, verifySqliteChain } from '../../src/audit/chain-verify-sqlite';
import { readWholeLog } from '../../src/audit/log-transfer';
import { linkHash, sha256Hex, splitMetadataText } from '../../src/store/chain';
import { openSqliteStore } from '../../src/store/sqlite';
import { createSignatureCheck, generateSigningKey, type SigningKey } from '../../src/vault/signing-key';
import { removeDir, tempDir } from '../support/temp';
import { tamperedLog } from './support/tamper';

const meta = (i: number) => ({ actor: 'cli', at: '2026-11-24T12:00:00.000Z', request_id: `r-${i}`, schema: 1 });

/** A log of 240 rule events, a secret erased ranges later, and checkpoints (by the second key after a rotation). */
async function writeLog(file: string, first: SigningKey, second: SigningKey): Promise<void> {
  const store = openSqliteStore(file);
  const secret = 'secret-00000000-0000-4000-b000-000000000001';
  const head = async () => {
    const report = await verifyChain(readWholeLog(store), { publicKeys: [], checkSignature: await createSignatureCheck() });
    return { seq: report.verified_through!.seq, hash: report.verified_through!.hash };
  };
  await store.append(secret, [{ type: 'SecretCreated', data: { id: 's1', sealed: 'v1' }, metadata: meta(0) }], 'no_stream');
  await store.append(secret, [{ type: 'SecretUpdated', data: { id: 's1', sealed: 'v2' }, metadata: meta(1) }], 0n);
  for (let i = 0; i < 240; i++) {
    const stream = `rule-${i % 17}`;
    // Some data that JSON escapes, and metadata with an extra member.
    await store.append(stream, [{ type: 'RuleUpdated', data: { id: stream, changes: { name: `r "${i}" \u00e9\n` } }, metadata: i % 5 === 0 ? { ...meta(i), source: 'import' } as never : meta(i) }], 'any');
    // The erasure record in a later range than the erased events, and before the tampered positions below.
    if (i === 70) await store.appendErasing(secret, [{ type: 'SecretDeleted', data: { id: 's1' }, metadata: meta(999) }], 1n);
    if (i % 40 === 39) await writeCheckpoint({ store, key: i <= 79 ? first : second, head: await head(), actor: 'system', at: meta(i).at, requestId: `cp-${i}`, ...(i === 79 ? { nextPublicKey: second.publicKey } : {}) });
  }
  await store.append('rule-last', [{ type: 'RuleCreated', data: { id: 'last' }, metadata: meta(1000) }], 'no_stream');
  await store.close();
}

t.test('verify on several threads gives the event-by-event report, sound or tampered', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const [first, second] = [await generateSigningKey(), await generateSigningKey()];
  const log = path.join(dir, 'events.db');
  await writeLog(log, first, second);
  const checkSignature = await createSignatureCheck();

  const compare = async (file: string, publicKeys: string[], what: string) => {
    const store = openSqliteStore(file);
    try {
      const options: VerifyOptions = { publicKeys, checkSignature };
      const expected = await verifyChain(readWholeLog(store), options);
      t.same(await verifySqliteChain(file, store, options, { threads: 4, minRange: 1 }), expected, `${what}: four workers`);
      t.same(await verifySqliteChain(file, store, options, { threads: 1 }), expected, `${what}: one range in this thread`);
      return expected;
    } finally {
      await store.close();
    }
  };

  const sound = await compare(log, [first.publicKey], 'sound, the first key');
  t.equal(sound.verified, true);
  t.equal(sound.erased_events, 2, 'the erased events and their erasure record are in different ranges');
  t.equal(sound.checkpoints, 6);
  // (verifyChain names the erased events at positions 1 and 2 here: their erasure record lies past the first break.)
  t.equal((await compare(log, [second.publicKey], 'the second key only')).verified, false);
  t.equal((await compare(log, [], 'no key')).verified, true);

  // Each range's row check accepts the sound log by itself: the report above came from the fast path.
  const db = openForVerify(log);
  try {
    const head = db.prepare('SELECT max(position) FROM events').pluck().get() as bigint;
    const ranges = cut(head, 4, 1);
    t.equal(ranges.length, 4);
    for (const range of ranges) {
      const result = await checkRange(db, range, { checkSignature });
      t.equal(result.clean, true, `range ${range.after}..${range.through} is clean`);
    }
  } finally {
    db.close();
  }

  const rows = new Database(log, { readonly: true }).prepare('SELECT * FROM events ORDER BY position').all() as { position: number; stream: string; revision: number; id: string; type: string; data: string; metadata: string }[];
  const at = rows.find((row) => row.position > 130 && row.type === 'RuleUpdated')!.position;
  const tampered: [string, (db: Database.Database) => void, string | undefined][] = [
    ['modified', (db) => db.prepare("UPDATE events SET data = json_set(data, '$.id', 'forged') WHERE position = ?").run(at), 'modified'],
    ['removed', (db) => db.prepare('DELETE FROM events WHERE position = ?').run(at), 'removed'],
    ['blanked', (db) => db.prepare('UPDATE events SET data = ? WHERE position = ?').run('{"erased":true}', at), 'modified'],
    ['reordered', (db) => {
      const [a, b] = [rows.find((row) => row.position === at)!, rows.find((row) => row.position === at + 1)!];
      db.prepare('DELETE FROM events WHERE position IN (?, ?)').run(at, at + 1);
      const put = db.prepare('INSERT INTO events (position, stream, revision, id, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?, ?)');
      put.run(at, b.stream, b.revision, b.id, b.type, b.data, b.metadata);
      put.run(at + 1, a.stream, a.revision, a.id, a.type, a.data, a.metadata);
    }, 'reordered'],
    ['inserted', (db) => {
      // Linked properly (no secret needed): the event after it gives it away.
      const prev = splitMetadataText(rows.find((row) => row.position === at)!.metadata).link!;
      const data = JSON.stringify({ forged: true });
      const metaText = JSON.stringify(meta(7));
      const digest = sha256Hex(data);
      const hash = linkHash(prev.hash, prev.seq + 1, { stream: 'rule-forged', revision: 0n, id: 'forged', type: 'RuleCreated', metaText }, digest, undefined);
      const later = db.prepare('SELECT position FROM events WHERE position > ? ORDER BY position DESC').all(at) as { position: number }[];
      for (const { position } of later) db.prepare('UPDATE events SET position = ? WHERE position = ?').run(position + 1, position);
      db.prepare('INSERT INTO events (position, stream, revision, id, type, data, metadata) VALUES (?, ?, 0, ?, ?, ?, ?)')
        .run(at + 1, 'rule-forged', 'forged', 'RuleCreated', data, `${metaText.slice(0, -1)},"chain":${JSON.stringify({ v: 1, seq: prev.seq + 1, prev: prev.hash, digest, hash })}}`);
    }, 'inserted'],
    // The same metadata spelled with a space: the bytes no longer match the hash, the content does (the second pass says so).
    ['respelled', (db) => db.prepare('UPDATE events SET metadata = replace(metadata, \'"actor":\', \'"actor": \') WHERE position = ?').run(at), undefined],
    ['erasure record removed', (db) => db.prepare("DELETE FROM events WHERE type = 'SecretDeleted'").run(), 'modified'],
  ];
  for (const [name, tamper, kind] of tampered) {
    const report = await compare(tamperedLog(log, dir, name.replace(/ /g, '-'), tamper), [first.publicKey], name);
    t.equal(report.break?.kind, kind, `${name}: named as ${kind ?? 'no break'}`);
  }
});

t.test('a checkpoint by a retired key, ranges after its rotation, fails as it does event by event', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const [first, second] = [await generateSigningKey(), await generateSigningKey()];
  const log = path.join(dir, 'events.db');
  await writeLog(log, first, second);
  const store = openSqliteStore(log);
  t.teardown(() => store.close());
  const checkSignature = await createSignatureCheck();
  const head = (await verifyChain(readWholeLog(store), { publicKeys: [], checkSignature })).verified_through!;
  await writeCheckpoint({ store, key: first, head, actor: 'system', at: meta(0).at, requestId: 'cp-old' });
  for (const [publicKeys, kind] of [[[], 'signature'], [[first.publicKey], undefined]] as const) {
    const expected = await verifyChain(readWholeLog(store), { publicKeys, checkSignature });
    t.equal(expected.break?.kind, kind, kind === undefined ? 'a key given stays trusted' : 'without keys given, the endorsement retired the first key');
    t.same(await verifySqliteChain(log, store, { publicKeys, checkSignature }, { threads: 4, minRange: 1 }), expected, `${publicKeys.length} keys given: the same report`);
  }
});

t.test('ranges cover the log once, whatever the threads', async (t) => {
  t.same(cut(10n, 4, 1).map((r) => [r.after, r.through]), [[0n, 2n], [2n, 5n], [5n, 7n], [7n, 10n]]);
  t.same(cut(10n, 4, 6).map((r) => [r.after, r.through]), [[0n, 10n]], 'fewer positions than minRange: one range');
  t.same(cut(1n, 8, 1).map((r) => [r.after, r.through]), [[0n, 1n]]);
});
