/**
 * A snapshot never wins over the log it was taken from (issue 14, item 1):
 * after a fixed-seed random sequence of secret creates, updates and deletes
 * (with rule and context writes between them), a start from any snapshot
 * taken along the way, plus the events after it, gives the same digest as a
 * full replay and as the live node. A snapshot that holds a secret its log
 * has erased at or before the snapshot's position is discarded and removed.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { evolve, type CatalogState } from '../../projections';
import { digestState } from '../../src/audit/digest';
import { replayLog } from '../../src/audit/log-transfer';
import { AppError } from '../../src/base/errors';
import { createLogger } from '../../src/base/log';
import type { Actor } from '../../src/service/command-bus';
import { encodeSnapshot, SNAPSHOT_FILE } from '../../src/snapshots/snapshot';
import { loadStartState, logIdentity } from '../../src/snapshots/snapshotter';
import type { EventStore } from '../../src/store/port';
import { commandNodeFor, type CommandNode } from '../audit/support/history';
import { pick, seededRandom } from '../engine/random-rules';

const SEED = 1414;
const STEPS = 400;
const SNAPSHOT_EVERY = 37;

/** A start as main.ts does it: the snapshot on disk (if the log confirms it), then every event after it. */
async function startFrom(store: EventStore, dir: string, snapshotText: string, warnings: string[]): Promise<CatalogState | undefined> {
  writeFileSync(path.join(dir, SNAPSHOT_FILE), snapshotText);
  const start = await loadStartState(store, dir, createLogger((line) => warnings.push(line)));
  if (start === undefined) return undefined;
  const { state } = start;
  for (let after = state.position; ;) {
    const page = await store.readAll({ after, limit: 500 });
    if (page.length === 0) return state;
    for (const event of page) evolve(state, event);
    after = page[page.length - 1]!.position;
  }
}

/** Secret-heavy random writes; snapshots (as text) taken every SNAPSHOT_EVERY steps. */
async function randomWrites(node: CommandNode, seed: number): Promise<string[]> {
  const random = seededRandom(seed);
  const state = node.readModel.state;
  const actor: Actor = { id: 'alice', requestId: 'r' };
  const someSecret = () => (state.vault.secrets.size === 0 ? 'missing' : pick(random, [...state.vault.secrets.keys()]));
  const someContext = () => (state.contexts.size === 0 ? 'missing' : pick(random, [...state.contexts.keys()]));
  const snapshots: string[] = [];
  for (let step = 0; step < STEPS; step++) {
    const roll = random();
    try {
      if (roll < 0.35) await node.vault.createSecret({ key: `KEY_${step % 50}`, value: `plaintext-${step}`, tags: [pick(random, ['a', 'b'])] }, actor);
      else if (roll < 0.55) {
        const patch = pick(random, [() => ({ value: `new-${step}` }), () => ({ tags: ['c'] }), () => ({ key: `RENAMED_${step}` })])();
        await node.vault.updateSecret(someSecret(), patch, undefined, actor);
      } else if (roll < 0.8) await node.vault.deleteSecret(someSecret(), actor);
      else if (roll < 0.9) {
        await node.catalog.createRule({ name: `r${step}`, condition_groups: [{ conditions: [{ field: 'n', operator: 'equals', value: String(step) }] }] }, actor);
      } else if (roll < 0.95) await node.catalog.createContext({ name: `c${step}`, content: `content ${step}` }, actor);
      else await node.catalog.updateContext(someContext(), { content: `edited ${step}` }, undefined, actor);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
    }
    if (step % SNAPSHOT_EVERY === SNAPSHOT_EVERY - 1) snapshots.push(encodeSnapshot(state, (await logIdentity(node.store))!, node.readModel.mark()!));
  }
  return snapshots;
}

t.test('snapshot start and full replay give the same digest after random creates, updates and deletes', async (t) => {
  const { node, dir } = await commandNodeFor(t);
  const snapshots = await randomWrites(node, SEED);

  const live = digestState(node.readModel.state);
  const replayed = digestState((await replayLog(node.store)).state);
  t.same(replayed, live, 'full replay equals the live node');
  const log = await node.store.readAll({ limit: 10_000 });
  const deletions = log.filter((e) => e.type === 'SecretDeleted').length;
  t.ok(deletions >= 20 && live.counts.secrets > 0, `a varied history: ${deletions} deletions, ${live.counts.secrets} secrets left`);

  const warnings: string[] = [];
  for (const [i, text] of snapshots.entries()) {
    const started = await startFrom(node.store, dir, text, warnings);
    t.ok(started, `snapshot ${i} is accepted`);
    if (started === undefined) return;
    t.equal(digestState(started).sha256, replayed.sha256, `snapshot ${i} + the events after it = the full replay`);
  }
  t.same(warnings, [], 'no snapshot was refused');
});

t.test('a snapshot holding a secret its log erased (the stream removed, as before issue 14) is discarded and removed', async (t) => {
  const { node, dir } = await commandNodeFor(t);
  const actor: Actor = { id: 'alice', requestId: 'r' };
  const kept = await node.vault.createSecret({ key: 'KEPT', value: 'kept' }, actor);
  const doomed = await node.vault.createSecret({ key: 'DOOMED', value: 'doomed' }, actor);
  await node.catalog.createContext({ name: 'after', content: 'x' }, actor);
  const snapshot = encodeSnapshot(node.readModel.state, (await logIdentity(node.store))!, node.readModel.mark()!);
  // The erasure as the embedded store did it before: the whole stream, deletion included, gone.
  const db = new Database(path.join(dir, 'events.db'));
  db.prepare('DELETE FROM events WHERE stream = ?').run(`secret-${doomed.id}`);
  db.close();

  const warnings: string[] = [];
  const started = await startFrom(node.store, dir, snapshot, warnings);
  t.equal(started, undefined, 'the snapshot is not used: the whole log is replayed');
  t.match(warnings.map((line) => JSON.parse(line)), [{ msg: 'snapshot ignored; replaying the whole log', reason: new RegExp(`holds secret ${doomed.id}, which the log has erased`) }]);
  t.notOk(existsSync(path.join(dir, SNAPSHOT_FILE)), 'and removed, so it keeps no erased secret');
  const replayed = (await replayLog(node.store)).state;
  t.same([...replayed.vault.secrets.keys()], [kept.id], 'the log alone decides');
});

t.test('a snapshot taken before an erasure is used; the deletion after it is replayed', async (t) => {
  const { node, dir } = await commandNodeFor(t);
  const actor: Actor = { id: 'alice', requestId: 'r' };
  const doomed = await node.vault.createSecret({ key: 'DOOMED', value: 'doomed' }, actor);
  const snapshot = encodeSnapshot(node.readModel.state, (await logIdentity(node.store))!, node.readModel.mark()!);
  await node.vault.deleteSecret(doomed.id, actor);
  const warnings: string[] = [];
  const started = await startFrom(node.store, dir, snapshot, warnings);
  t.ok(started, 'the snapshot is used');
  t.same(warnings, []);
  t.equal(started?.vault.secrets.size, 0, 'the deletion after it removes the secret');
  t.same([...(started?.vault.erasurePending ?? [])], [doomed.id], 'and marks its erasure for start-up to finish (and rewrite the snapshot)');
});
