/** The affix trie meets exactly the operands that are prefixes (suffixes) of a value, and prunes on removal. */
import fc from 'fast-check';
import t from 'tap';
import { createTrieNode, trieInsert, trieRemove, trieWalk } from '../../src/engine/affix-trie';

const text = fc.string({ unit: fc.constantFrom('a', 'b', '-', 'é', '\ud83d', '\ude00'), maxLength: 6 });

for (const backwards of [false, true]) {
  t.test(`${backwards ? 'suffixes' : 'prefixes'}: walk equals a brute-force scan (fast-check)`, async (t) => {
    fc.assert(fc.property(fc.array(text, { maxLength: 30 }), fc.array(fc.nat(29)), fc.array(text, { maxLength: 10 }), (operands, removals, values) => {
      const root = createTrieNode<number>();
      operands.forEach((operand, i) => trieInsert(root, operand, backwards, i));
      const live = new Set(operands.map((_, i) => i));
      for (const r of removals) {
        if (!live.has(r)) continue;
        trieRemove(root, operands[r], backwards, r);
        live.delete(r);
      }
      for (const value of values) {
        const met: number[] = [];
        trieWalk(root, value, backwards, (items) => met.push(...items));
        const want = [...live].filter((i) => (backwards ? value.endsWith(operands[i]) : value.startsWith(operands[i])));
        if (JSON.stringify(met.sort((a, b) => a - b)) !== JSON.stringify(want.sort((a, b) => a - b))) {
          throw new Error(`value ${JSON.stringify(value)}: met ${met} want ${want}`);
        }
      }
      if (live.size === 0 && (root.next.size !== 0 || root.items.length !== 0)) throw new Error('removing everything left nodes behind');
    }), { numRuns: 1000 });
    t.pass('1000 random tries agree with startsWith/endsWith');
  });
}
