/** The affix index meets exactly the operands that are prefixes (suffixes) of a value, and forgets removed ones. */
import fc from 'fast-check';
import t from 'tap';
import { affixInsert, affixRemove, affixWalk, createAffixIndex } from '../../src/engine/affix-index';
import { propertyOptions } from '../support/seeds';

const text = fc.string({ unit: fc.constantFrom('a', 'b', '-', 'é', '\ud83d', '\ude00'), maxLength: 6 });

for (const suffix of [false, true]) {
  t.test(`${suffix ? 'suffixes' : 'prefixes'}: walk equals a brute-force scan (fast-check)`, async (t) => {
    const agrees = fc.property(fc.uniqueArray(text, { maxLength: 30 }), fc.array(fc.nat(29)), fc.array(text, { maxLength: 10 }), (operands, removals, values) => {
      const index = createAffixIndex<number>(suffix);
      operands.forEach((operand, i) => affixInsert(index, operand, i));
      const live = new Set(operands.map((_, i) => i));
      for (const r of removals) {
        if (!live.has(r)) continue;
        affixRemove(index, operands[r]);
        live.delete(r);
      }
      for (const value of values) {
        const met: number[] = [];
        affixWalk(index, value, (item) => met.push(item));
        const want = [...live].filter((i) => (suffix ? value.endsWith(operands[i]) : value.startsWith(operands[i])));
        if (JSON.stringify(met.sort((a, b) => a - b)) !== JSON.stringify(want.sort((a, b) => a - b))) {
          throw new Error(`value ${JSON.stringify(value)}: met ${met} want ${want}`);
        }
      }
      const lengths = new Set([...live].map((i) => operands[i].length));
      if (JSON.stringify(index.lengths) !== JSON.stringify([...lengths].sort((a, b) => a - b))) {
        throw new Error(`lengths ${index.lengths} do not list the live operands' lengths once each`);
      }
    });
    for (const options of propertyOptions(1000)) fc.assert(agrees, options);
    t.pass('1000 random indexes agree with startsWith/endsWith');
  });
}
