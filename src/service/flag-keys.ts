/**
 * The flag-key index (ADR 0057; docs/openfeature.md): rule key -> rule, for
 * the rules created with a `key`. OFREP looks a flag up in it, a bulk answer
 * walks it in key order, and a create refuses a key another rule holds.
 *
 * A key is set when its rule is created and never changes (ADR 0053), so the
 * index follows RuleCreated and RuleDeleted alone, as each is applied
 * (ReadModel.onApplied). It is built at first use by one scan: after a
 * snapshot start the records still unread are tested on their text first
 * (`rulesWhere`), so a catalog without keys decodes almost nothing.
 */
import { rulesWhere, type RuleRecord } from '../../projections';
import type { ReadModel } from '../read-model/read-model';

export interface FlagKeys {
  /** The live rule holding `key`, if any. */
  ruleOf(key: string): RuleRecord | undefined;
  /** The id of the live rule holding `key`, if any: the holder a create naming it is refused for. */
  holderOf(key: string): string | undefined;
  /** The keyed rules in key order (UTF-16 code units), the order of a bulk answer. */
  sorted(): RuleRecord[];
}

/** One index per read model: the OFREP endpoints and the catalog's writes share it. */
const indexes = new WeakMap<ReadModel, FlagKeys>();

export function flagKeysOf(readModel: ReadModel): FlagKeys {
  let index = indexes.get(readModel);
  if (index === undefined) indexes.set(readModel, (index = createFlagKeys(readModel)));
  return index;
}

function createFlagKeys(readModel: ReadModel): FlagKeys {
  const { rules } = readModel.state;
  const idOfKey = new Map<string, string>();
  const keyOfId = new Map<string, string>();
  /** Keys two live rules hold (a log written before keys were unique): the survivor is looked for when the holder goes. */
  const contested = new Set<string>();
  let sortedKeys: string[] | undefined;

  const hold = (key: string, id: string): void => {
    const holder = idOfKey.get(key);
    if (holder !== undefined && holder !== id) {
      // The first holder keeps it, as on a restart's scan (log order).
      contested.add(key);
      return;
    }
    idOfKey.set(key, id);
    keyOfId.set(id, key);
    sortedKeys = undefined;
  };
  const release = (id: string): void => {
    const key = keyOfId.get(id);
    if (key === undefined) return;
    keyOfId.delete(id);
    idOfKey.delete(key);
    sortedKeys = undefined;
    if (!contested.delete(key)) return;
    const others = rulesWhere(rules, JSON.stringify(key), (r) => r.key === key);
    for (const other of others) hold(other.key!, other.id);
  };

  // Subscribed first, then scanned: both run in this one synchronous step, so no event falls between them.
  readModel.onApplied((event) => {
    const id = event.data.id;
    if (typeof id !== 'string') return;
    if (event.type === 'RuleCreated' && typeof event.data.key === 'string') hold(event.data.key, id);
    else if (event.type === 'RuleDeleted') release(id);
  });
  for (const rule of rulesWhere(rules, '"key"', (r) => r.key !== undefined)) hold(rule.key!, rule.id);

  const ruleOf = (key: string): RuleRecord | undefined => {
    const id = idOfKey.get(key);
    return id === undefined ? undefined : rules.get(id);
  };
  return {
    ruleOf,
    holderOf: (key) => idOfKey.get(key),
    sorted() {
      sortedKeys ??= [...idOfKey.keys()].sort();
      const found: RuleRecord[] = [];
      for (const key of sortedKeys) {
        const rule = ruleOf(key);
        if (rule !== undefined) found.push(rule);
      }
      return found;
    },
  };
}
