/**
 * The reference for split bucketing: `@openfeature/flagd-core` (a
 * devDependency only), flagd's own in-process evaluator, asked which variant
 * its `fractional` gives a targeting key. It hashes UTF-16 units, so it is
 * the reference on ASCII keys only (src/engine/murmur3.ts).
 */
import { FlagdCore } from '@openfeature/flagd-core';

/** A variant name and its weight, in the split's order. */
export type Weighted = readonly [name: string, weight: number];

/** flagd's choices for `flagKey` with `weights`, one evaluator for many keys. */
export function flagdFractional(flagKey: string, weights: readonly Weighted[]): (targetingKey: string) => string {
  const core = new FlagdCore();
  const variants = Object.fromEntries(weights.map(([name]) => [name, name]));
  core.setConfigurations(JSON.stringify({
    flags: { [flagKey]: { state: 'ENABLED', defaultVariant: weights[0]![0], variants, targeting: { fractional: weights.map(([n, w]) => [n, w]) } } },
  }));
  return (targetingKey) => String(core.resolveStringEvaluation(flagKey, '', { targetingKey }).value);
}

/** ASCII sample keys, deterministic: user ids, e-mails, UUID-like and short ones. */
export function sampleKeys(count: number): string[] {
  const shapes = [(i: number) => `user-${i}`, (i: number) => `u${i}@example.com`, (i: number) => `${(i * 2654435761 >>> 0).toString(16)}-${i}`, (i: number) => String(i)];
  return Array.from({ length: count }, (_, i) => shapes[i % shapes.length]!(i));
}
