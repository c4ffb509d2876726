/**
 * Reading a snapshot file in chunks (readSnapshotFile): every line that runs
 * past a chunk, UTF-8 characters split between chunks included, gives the
 * same state as decoding the whole file at once; damage anywhere, in a later
 * chunk too, is refused with the same reasons. On a real file in a temp dir.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { evolve, initialState, snapshotMembers, type CatalogState } from '../../projections';
import { decodeSnapshot, encodeSnapshot, readSnapshotFile } from '../../src/snapshots/snapshot';
import type { RecordedEvent } from '../../src/store/port';
import { removeDir, tempDir } from '../support/temp';

const LOG_ID = '0193a5c2-7f10-7c3e-9d2a-000000000001';
/** The event a snapshot names at its position: these are only decoded, never checked against a log. */
const MARK = { id: '0193a5c2-7f10-7c3e-9d2a-000000000099', chain: null };

/** A catalog of `count` rules whose names and values carry multi-byte characters (2, 3 and 4 bytes in UTF-8). */
function catalog(count: number): CatalogState {
  const state = initialState();
  for (let i = 0; i < count; i++) {
    const id = `rule-${String(i).padStart(4, '0')}`;
    const event: RecordedEvent = {
      id: `event-${i}`, stream: `rule-${id}`, type: 'RuleCreated', revision: 0n, position: BigInt(i + 1),
      data: {
        id, name: `règle ${i} ✓ 😀`, description: 'é'.repeat(i % 7), status: 'ACTIVE', group_operator: 'AND',
        condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'tier', operator: 'equals', value: `gold-${i}-€`, data_type: 'string' }] }],
        entities: [],
      },
      metadata: { actor: 'cli', at: '2026-11-24T12:00:00.000Z', request_id: `req-${i}`, schema: 1 },
    };
    evolve(state, event);
  }
  return state;
}

const members = (state: CatalogState): string => JSON.stringify(snapshotMembers(state));

t.test('read in chunks of any size, a snapshot decodes to the state it was written from', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const state = catalog(300);
  const text = encodeSnapshot(state, LOG_ID, MARK);
  const file = path.join(dir, 'snapshot.json');
  writeFileSync(file, text);
  const whole = decodeSnapshot(text);
  t.ok(whole.ok, 'decoded whole');
  // 1 byte: every character split; 7 and 333: odd sizes that split lines and characters at varying places; the default.
  for (const chunk of [1, 7, 333, 4096, undefined]) {
    const read = await readSnapshotFile(file, chunk);
    if (!read.ok || !whole.ok) {
      t.fail(`chunk ${chunk}: ${read.ok ? '' : read.reason}`);
      continue;
    }
    t.equal(read.snapshot.logId, LOG_ID);
    t.equal(read.snapshot.position, 300n);
    t.equal(members(read.snapshot.state), members(state), `chunk ${chunk ?? 'default'}: the same state`);
  }
});

t.test('damage is refused when read in chunks, wherever it lies', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const text = encodeSnapshot(catalog(200), LOG_ID, MARK);
  const file = path.join(dir, 'snapshot.json');
  const late = text.lastIndexOf('gold-');
  for (const [name, damaged, reason] of [
    ['a flipped character near the end', `${text.slice(0, late)}silv${text.slice(late + 4)}`, /checksum/],
    ['truncated mid-line', text.slice(0, text.length - 40), /checksum/],
    ['a line that is not JSON, checksum kept', rehash(text, (body) => body.replace('"member":"rules"', '"member":rules"')), /not valid JSON/],
    ['fewer items than announced, checksum kept', rehash(text, (body) => body.slice(0, body.lastIndexOf('{"id":"rule-0199"'))), /not valid JSON/],
    ['another format', text.replace(/^\{"format":\d+,/, '{"format":999,'), /format 999/],
    ['empty', '', /not valid JSON/],
  ] as const) {
    writeFileSync(file, damaged);
    for (const chunk of [5, 4096]) {
      const read = await readSnapshotFile(file, chunk);
      const whole = decodeSnapshot(damaged);
      t.notOk(read.ok, `${name}, chunk ${chunk}: refused`);
      t.match(read.ok ? '' : read.reason, reason, `${name}, chunk ${chunk}: the reason`);
      t.same(read, whole, `${name}, chunk ${chunk}: as decoding it whole says`);
    }
  }
  t.same(await readSnapshotFile(path.join(dir, 'missing.json')), { ok: false, reason: 'none' });
});

/** The file with its body changed by `change` and the header's checksum made to fit, so only the body's own check can refuse it. */
function rehash(text: string, change: (body: string) => string): string {
  const { createHash } = require('node:crypto') as typeof import('node:crypto');
  const newline = text.indexOf('\n');
  const body = change(text.slice(newline + 1));
  const header = JSON.parse(text.slice(0, newline)) as { format: number };
  return `${JSON.stringify({ format: header.format, sha256: createHash('sha256').update(body).digest('hex') })}\n${body}`;
}
