/**
 * Split bucketing (src/engine/split.ts, murmur3.ts): murmur3 against known
 * vectors and a byte-wise reference over Buffer's UTF-8, the thresholds
 * against flagd's (hash * total) >> 32 in BigInt, the choice against
 * @openfeature/flagd-core, and a rollout's monotony.
 */
import t from 'tap';
import {
  bucketOf, chooseVariant, compileSplit, explainSplit, MAX_SPLIT_WEIGHT, murmur3Utf8, thresholdOf, type Split,
} from '../../src/engine';
import { flagdFractional, sampleKeys, type Weighted } from '../support/flagd';

// flagd-core's hash (it ships no types): UTF-16 units, not UTF-8 bytes.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const imurmurhash = require('imurmurhash') as new (text: string) => { result(): number };

/** murmur3 x86 32 over bytes, written plainly from the algorithm's description. */
function reference(bytes: Uint8Array, seed = 0): number {
  let h = seed >>> 0;
  const mix = (k: number) => {
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    return Math.imul(k, 0x1b873593);
  };
  const blocks = bytes.length - (bytes.length % 4);
  for (let i = 0; i < blocks; i += 4) {
    h ^= mix(bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24));
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  let tail = 0;
  for (let i = bytes.length - 1; i >= blocks; i--) tail = (tail << 8) | bytes[i]!;
  if (bytes.length > blocks) h ^= mix(tail);
  h ^= bytes.length;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const hex = (n: number) => n.toString(16).padStart(8, '0');

t.test('murmur3 matches the published vectors and the issue\'s UTF-8 one', async (t) => {
  t.equal(hex(murmur3Utf8('', '')), '00000000');
  t.equal(hex(murmur3Utf8('', '', 1)), '514e28b7');
  t.equal(hex(murmur3Utf8('hello', '')), '248bfa47');
  t.equal(hex(murmur3Utf8('The quick brown fox ', 'jumps over the lazy dog')), '2e4ff723');
  t.equal(hex(murmur3Utf8('é-user', '')), '4dda53ae', 'UTF-8 bytes, as flagd\'s Go service hashes');
  t.equal(hex(new imurmurhash('é-user').result() >>> 0), '78acc76b', 'flagd-core (UTF-16 units) differs: the documented caution');
});

t.test('murmur3 agrees with a byte-wise reference over UTF-8, however the text is split in two', async (t) => {
  const texts = ['', 'a', 'ab', 'abc', 'abcd', 'abcde', 'é', 'ß-€-😀', 'x\ud800y', '\udc00', '😀😀', 'rule-key' + 'ü'.repeat(9), '日本語のキー'];
  for (const text of texts) {
    const want = reference(Buffer.from(text, 'utf8'));
    for (let cut = 0; cut <= text.length; cut++) {
      t.equal(murmur3Utf8(text.slice(0, cut), text.slice(cut)), want, `${JSON.stringify(text)} cut at ${cut}`);
    }
  }
});

t.test('on ASCII, murmur3 is imurmurhash (flagd-core\'s)', async (t) => {
  for (const key of sampleKeys(500)) t.equal(murmur3Utf8('flag-', key), new imurmurhash(`flag-${key}`).result() >>> 0);
});

t.test('thresholds: bucket >= sum exactly when hash >= ceil(sum * 2^32 / total)', async (t) => {
  const totals = [1, 2, 3, 7, 100, 1000, 100_000, 65_537, 2 ** 31 - 1, 1_234_567_891];
  const exact = (sum: number, total: number) => {
    const n = BigInt(sum) << 32n;
    const d = BigInt(total);
    return Number((n + d - 1n) / d);
  };
  const bucketBig = (hash: number, total: number) => Number((BigInt(hash) * BigInt(total)) >> 32n);
  for (const total of totals) {
    for (const sum of [0, 1, Math.floor(total / 3), Math.floor(total / 2), total - 1, total]) {
      if (sum < 0 || sum > total) continue;
      const at = thresholdOf(sum, total);
      t.equal(at, exact(sum, total), `threshold of ${sum}/${total}`);
      for (const hash of [at - 1, at, at + 1, 0, 2 ** 32 - 1]) {
        if (hash < 0 || hash >= 2 ** 32) continue;
        t.equal(bucketOf(hash, total), bucketBig(hash, total), `bucket of ${hash} at ${total}`);
        t.equal(bucketOf(hash, total) >= sum, hash >= at, `${hash} vs ${sum}/${total}`);
      }
    }
  }
});

function split(weights: readonly Weighted[], schedule?: Split['schedule']): Split {
  return {
    entity_type: 'prompt', bucket_by: 'targetingKey',
    variants: weights.map(([name, weight]) => ({ name, entity_id: `p-${name}`, weight })), ...(schedule === undefined ? {} : { schedule }),
  };
}

t.test('the choice is flagd-core\'s for 500 ASCII keys', async (t) => {
  const cases: readonly (readonly Weighted[])[] = [
    [['a', 50], ['b', 50]],
    [['a', 90], ['b', 10]],
    [['a', 99_999], ['b', 1]],
    [['a', 20], ['b', 30], ['c', 50]],
    [['a', 0], ['b', 1], ['c', 0], ['d', MAX_SPLIT_WEIGHT - 1]],
  ];
  for (const weights of cases) {
    const ruleKey = 'checkout-prompt';
    const flagd = flagdFractional(ruleKey, weights);
    const compiled = compileSplit(split(weights), ruleKey);
    let same = 0;
    for (const key of sampleKeys(500)) {
      const ours = compiled.variants[chooseVariant(compiled, key, 0)]!.name;
      if (ours === flagd(key)) same += 1;
      else t.fail(`${key} at ${JSON.stringify(weights)}: ours ${ours}, flagd ${flagd(key)}`);
    }
    t.equal(same, 500, `all 500 at ${JSON.stringify(weights)}`);
  }
});

t.test('without a bucketing value, the variant of bucket 0: the first with weight', async (t) => {
  const compiled = compileSplit(split([['a', 0], ['b', 5], ['c', 5]]), 'k');
  for (const value of [undefined, null, '']) t.equal(chooseVariant(compiled, value, 0), 1);
  t.equal(chooseVariant(compiled, 42, 0), chooseVariant(compiled, '42', 0), 'a number buckets as its text');
  t.equal(chooseVariant(compiled, true, 0), chooseVariant(compiled, 'true', 0));
});

t.test('a rollout moves each key at most once, only forward, and is flagd\'s at both ends', async (t) => {
  const start = '2026-03-01T00:00:00.000Z';
  const end = '2026-03-08T00:00:00.000Z';
  const [s, e] = [Date.parse(start), Date.parse(end)];
  for (const steps of [undefined, 4]) {
    const rollout = split([['old', 100], ['new', 0]], { start, end, weights: { old: 0, new: 100 }, ...(steps === undefined ? {} : { steps }) });
    const compiled = compileSplit(rollout, 'rollout');
    const keys = sampleKeys(2000);
    const seen = keys.map(() => [] as number[]);
    const times = Array.from({ length: 201 }, (_, i) => s - 3_600_000 + ((e - s + 7_200_000) * i) / 200);
    for (const now of times) keys.forEach((key, k) => seen[k]!.push(chooseVariant(compiled, key, now)));
    let moved = 0;
    keys.forEach((key, k) => {
      const path = seen[k]!;
      const changes = path.filter((v, i) => i > 0 && v !== path[i - 1]).length;
      if (changes > 1 || path[0] !== 0 || path[path.length - 1] !== 1 || path.some((v, i) => i > 0 && v < path[i - 1]!)) t.fail(`${key}: ${path.join('')}`);
      moved += changes;
    });
    t.equal(moved, keys.length, `steps ${steps ?? 'linear'}: every key moved exactly once`);
    const mid = keys.filter((key) => chooseVariant(compiled, key, s + (e - s) / 2) === 1).length / keys.length;
    t.ok(Math.abs(mid - 0.5) < 0.05, `half way, about half are on the new variant (${mid})`);
    const flagdEnd = flagdFractional('rollout', [['old', 0], ['new', 100]]);
    t.ok(keys.every((key) => compiled.variants[chooseVariant(compiled, key, e)]!.name === flagdEnd(key)), 'at the end: the schedule\'s weights');
  }
});

t.test('with three variants a key moves at most twice and never back to a variant it left', async (t) => {
  const start = '2026-03-01T00:00:00Z';
  const end = '2026-03-02T00:00:00Z';
  const compiled = compileSplit(split([['a', 60], ['b', 40], ['c', 0]], { start, end, weights: { a: 0, b: 30, c: 70 } }), 'three');
  const [s, e] = [Date.parse(start), Date.parse(end)];
  for (const key of sampleKeys(1000)) {
    const path: number[] = [];
    for (let i = 0; i <= 100; i++) path.push(chooseVariant(compiled, key, s + ((e - s) * i) / 100));
    const runs = path.filter((v, i) => i === 0 || v !== path[i - 1]);
    if (runs.length > 3 || new Set(runs).size !== runs.length) t.fail(`${key}: ${runs.join(' ')}`);
  }
  t.pass('checked 1000 keys');
});

t.test('explain shows the value, its hash and bucket, and the ranges', async (t) => {
  const s = split([['a', 90], ['b', 10]]);
  const compiled = compileSplit(s, 'my-rule');
  const x = explainSplit(s, compiled, 'user-7', 0);
  t.equal(x.hash, murmur3Utf8('my-rule', 'user-7'));
  t.equal(x.bucket, Number((BigInt(x.hash!) * 100n) >> 32n));
  t.equal(x.total, 100);
  t.same(x.ranges, [{ variant: 'a', entity_id: 'p-a', from: 0, to: 90 }, { variant: 'b', entity_id: 'p-b', from: 90, to: 100 }]);
  t.equal(x.variant, x.bucket < 90 ? 'a' : 'b');
  t.equal(x.reason, 'SPLIT');
  const none = explainSplit(s, compiled, undefined, 0);
  t.same([none.value, none.hash, none.bucket, none.variant, none.reason], [null, null, 0, 'a', 'DEFAULT']);
});
