/**
 * Debugging tools over an engine's arena (layout.ts): `dumpRule` renders one
 * rule's records, drivers and verify code; `checkInvariants` lists every way
 * the records, posting lists and free lists disagree with each other (the
 * property tests call it after random upserts and removals). Both read only,
 * and neither is on the evaluation path.
 */
import { blockWords, FIRST_BLOCK } from './arena';
import { sizeAt } from './code';
import { recordAt, recordOf } from './held-entries';
import { Layout } from './layout';
import { Kind, type Predicate } from './predicates';
import { stateOf, type EngineState } from './state';
import type { Engine } from './types';

const KIND_NAMES: string[] = [];
for (const [name, kind] of Object.entries(Kind)) KIND_NAMES[kind] = name;

/** The words [from, to) as a list. */
const words = (i32: Int32Array, from: number, to: number): string => `[${Array.from(i32.subarray(from, to)).join(', ')}]`;

/** One condition in readable form: its kind, field and operands (value ids and pool indexes resolved). */
function describeCondition(state: EngineState, at: number): string {
  const { i32, f64 } = state.arena;
  const kind = i32[at + Layout.C_TAG] & Layout.KIND_MASK;
  const slotIndex = i32[at + Layout.C_SLOT];
  const slot = [...state.operands.slots.values()].find((s) => s.index === slotIndex);
  const field = slot?.name ?? `slot ${slotIndex}`;
  const textOf = (id: number): string => JSON.stringify([...(slot?.valueIds ?? [])].find(([, v]) => v === id)?.[0] ?? `#${id}`);
  const operand = i32[at + Layout.C_OPERAND];
  const f = at >> 1;
  let text: string;
  switch (kind) {
    case Kind.TEXT_EQ: case Kind.TEXT_NE: text = textOf(operand); break;
    case Kind.TEXT_IN: case Kind.TEXT_NOT_IN:
      text = Array.from(i32.subarray(at + Layout.C_IDS, at + Layout.C_IDS + i32[at + Layout.C_COUNT]), textOf).join(',');
      break;
    case Kind.STARTS_WITH: case Kind.ENDS_WITH: case Kind.CONTAINS: case Kind.NOT_CONTAINS:
      text = JSON.stringify(state.operands.view.strings[operand]);
      break;
    case Kind.REGEX: text = `regex #${operand}`; break;
    case Kind.BOOL_EQ: text = String(operand === Layout.BOOL_TRUE); break;
    case Kind.BETWEEN: text = `${f64[f + Layout.C_NUM]},${f64[f + Layout.C_NUM2]}`; break;
    case Kind.NUM_IN: case Kind.NUM_NOT_IN: text = Array.from(f64.subarray(f + Layout.C_NUMS, f + Layout.C_NUMS + i32[at + Layout.C_COUNT])).join(','); break;
    default: text = String(f64[f + Layout.C_NUM]);
  }
  return `${field} ${KIND_NAMES[kind] ?? `kind ${kind}`} ${text}`;
}

/** A predicate's operands as written in the rule. */
function operandsOf(p: Predicate): string {
  if (p.texts.size > 0) return [...p.texts].join(',');
  if (p.nums.size > 0) return [...p.nums].join(',');
  if (p.kind === Kind.BETWEEN) return `${p.num},${p.num2}`;
  if (p.kind <= Kind.REGEX) return JSON.stringify(p.text);
  return String(p.num);
}

/** Lines for the conditions in [from, to): each one's words, then what they say. */
function conditionLines(state: EngineState, from: number, to: number, indent: string): string[] {
  const i32 = state.arena.i32;
  const lines: string[] = [];
  for (let p = from; p < to; p += sizeAt(i32, p)) {
    lines.push(`${indent}@${p} ${words(i32, p, p + sizeAt(i32, p))}  ${describeCondition(state, p)}`);
  }
  return lines;
}

/** Lines for the verify groups in [from, to). */
function groupLines(state: EngineState, from: number, to: number, indent: string): string[] {
  const i32 = state.arena.i32;
  const lines: string[] = [];
  for (let q = from; q < to; q += sizeAt(i32, q)) {
    const operator = (i32[q + Layout.C_TAG] & Layout.KIND_MASK) === Layout.GROUP_AND ? 'AND' : 'OR';
    lines.push(`${indent}@${q} ${words(i32, q, q + Layout.GROUP_HEAD)}  ${operator} group`);
    lines.push(...conditionLines(state, q + Layout.GROUP_HEAD, q + sizeAt(i32, q), `${indent}  `));
  }
  return lines;
}

/** The used words of the posting block behind `handle`. */
function postingWords(state: EngineState, handle: number): string {
  const i32 = state.arena.i32;
  const block = state.postings.at[handle];
  return `@${block} ${words(i32, block, block + Layout.P_HEAD + i32[block + Layout.P_COND] + Layout.ENTRY_WORDS * i32[block + Layout.P_LEN])}`;
}

/**
 * One rule as the arena holds it: each group record's words (header, then
 * its verify conditions, then any inlined verify groups), the posting lists
 * its drivers feed, and its rule record. Words are shown as stored, so the
 * dump is what layout.ts's worked example documents.
 */
export function dumpRule(engine: Engine, ruleId: string): string {
  const state = stateOf(engine);
  const entry = state.rules.get(ruleId);
  if (entry === undefined) return `rule ${JSON.stringify(ruleId)}: not active`;
  if (entry.index === Layout.NEVER_MATCHES) return `rule ${JSON.stringify(ruleId)}: never matches (no records)`;
  const i32 = state.arena.i32;
  const lines = [`rule ${JSON.stringify(ruleId)} number ${entry.index}`];
  for (const group of entry.groups) {
    if (group.offset === Layout.NONE) {
      lines.push(`group: no record, one hit decides the rule (posting target ${group.target} = ~${entry.index})`);
    } else {
      const g = group.offset;
      const end = g + Layout.G_HEAD + i32[g + Layout.G_WORDS];
      lines.push(`group record @${g} ${words(i32, g, g + Layout.G_HEAD)}`);
      lines.push(...conditionLines(state, g + Layout.G_HEAD, end, '  '));
      lines.push(...groupLines(state, end, end + i32[g + Layout.G_GROUP_WORDS], '  '));
    }
    for (const driver of group.drivers) {
      lines.push(`  driver ${driver.field} ${KIND_NAMES[driver.kind]} ${operandsOf(driver)}`);
      for (const h of state.drivers.lists(driver)) lines.push(`    list #${h} ${h === Layout.NONE ? 'missing' : postingWords(state, h)}`);
    }
  }
  if (entry.record !== Layout.NONE) {
    const r = entry.record;
    lines.push(`rule record @${r} ${words(i32, r, r + Layout.R_HEAD)}`);
    lines.push(...groupLines(state, r + Layout.R_HEAD, r + Layout.R_HEAD + i32[r + Layout.R_WORDS], '  '));
  }
  return lines.join('\n');
}

/** Every posting handle filed in some field's index (text, number and boolean values, thresholds, affixes, residuals). */
function filedHandles(state: EngineState): number[] {
  const handles: number[] = [];
  for (const slot of state.operands.slots.values()) {
    for (const h of slot.textPostings) if (h !== Layout.NONE) handles.push(h);
    for (const h of slot.numPostings.values()) handles.push(h);
    for (const h of slot.boolPostings) if (h !== Layout.NONE) handles.push(h);
    for (const list of [slot.above, slot.below, slot.between]) handles.push(...list.handle.subarray(0, list.size));
    handles.push(...slot.prefixes.byOperand.values(), ...slot.suffixes.byOperand.values());
    handles.push(...slot.scan.handle.subarray(0, slot.scan.size));
  }
  return handles;
}

/**
 * What must hold between an engine's rule table, records, posting lists and
 * free lists after any sequence of upserts and removals; the problems found
 * (empty when consistent):
 * - rule numbers: each active rule's number names it, free numbers name
 *   none, and every number below the high-water mark is one or the other;
 * - records: each group and rule record lies in the arena, says its rule's
 *   number, and its word counts add up to its size, its conditions exactly
 *   filling them;
 * - drivers: every driver of every active group has its posting lists, each
 *   listing the group's target (so every active rule is reachable);
 * - postings: every filed list lies in the arena, LEN <= CAP, P_MASK is the
 *   AND of its entries' masks, and every entry names a live group (none
 *   points at a removed rule); entries total what the drivers attached;
 * - arena: live blocks and free blocks do not overlap and together cover
 *   every word handed out;
 * - kept lists (field-index.ts textHeld): each is kept for a live value id
 *   and names only its value's equals/in list or the field's affix and
 *   residual lists, so no change left one stale; the entries copied from
 *   them (held-entries.ts) are what the lists hold now.
 */
export function checkInvariants(engine: Engine): string[] {
  const state = stateOf(engine);
  const { arena, postings } = state;
  const i32 = arena.i32;
  const problems: string[] = [];
  const blocks: Array<[number, number, string]> = [];
  const inArena = (offset: number, size: number, what: string): boolean => {
    if (offset < FIRST_BLOCK || offset % FIRST_BLOCK !== 0 || offset + size > arena.used) {
      problems.push(`${what}: block @${offset} of ${size} words is outside the arena (used ${arena.used})`);
      return false;
    }
    blocks.push([offset, size, what]);
    return true;
  };
  /** Whether the conditions (or verify groups: their heads carry their size too) from `from` end exactly at `to`. */
  const fills = (from: number, to: number): boolean => {
    let p = from;
    while (p < to) {
      const size = sizeAt(i32, p);
      if (size <= 0) return false;
      p += size;
    }
    return p === to;
  };

  // Rule numbers.
  const used = new Set<number>();
  for (const [id, entry] of state.rules) {
    if (entry.index === Layout.NEVER_MATCHES) continue;
    if (state.ruleIds[entry.index] !== id) problems.push(`rule ${id}: number ${entry.index} names ${JSON.stringify(state.ruleIds[entry.index])}`);
    if (used.has(entry.index)) problems.push(`rule ${id}: number ${entry.index} is also another rule's`);
    used.add(entry.index);
  }
  const free = new Set(state.freeRuleIndexes);
  if (free.size !== state.freeRuleIndexes.length) problems.push('a rule number is free twice');
  for (const index of free) {
    if (used.has(index)) problems.push(`rule number ${index} is both free and in use`);
    if (state.ruleIds[index] !== '') problems.push(`free rule number ${index} still names ${JSON.stringify(state.ruleIds[index])}`);
  }
  if (used.size + free.size !== state.ruleIds.length) {
    problems.push(`rule numbers: ${used.size} in use + ${free.size} free != ${state.ruleIds.length} issued`);
  }

  // Records and drivers.
  const targets = new Set<number>();
  let attached = 0;
  for (const [id, entry] of state.rules) {
    if (entry.record !== Layout.NONE && inArena(entry.record, blockWords(entry.recordWords), `rule ${id} record`)) {
      const r = entry.record;
      if (i32[r + Layout.R_INDEX] !== entry.index) problems.push(`rule ${id} record: R_INDEX ${i32[r + Layout.R_INDEX]} != ${entry.index}`);
      if (i32[r + Layout.NEED] !== entry.groups.length) problems.push(`rule ${id} record: NEED ${i32[r + Layout.NEED]} != ${entry.groups.length} groups`);
      if (Layout.R_HEAD + i32[r + Layout.R_WORDS] !== entry.recordWords || !fills(r + Layout.R_HEAD, r + entry.recordWords)) {
        problems.push(`rule ${id} record: its verify groups do not fill its ${entry.recordWords} words`);
      }
    }
    for (const [k, group] of entry.groups.entries()) {
      const what = `rule ${id} group ${k}`;
      if (group.offset === Layout.NONE) {
        if (group.target >= Layout.RULE_TARGET_BELOW || ~group.target !== entry.index) problems.push(`${what}: target ${group.target} is not ~${entry.index}`);
      } else if (inArena(group.offset, blockWords(group.words), what)) {
        const g = group.offset;
        if (group.target !== g) problems.push(`${what}: target ${group.target} is not its record @${g}`);
        if (i32[g + Layout.G_INDEX] !== entry.index) problems.push(`${what}: G_INDEX ${i32[g + Layout.G_INDEX]} != ${entry.index}`);
        if (i32[g + Layout.G_RULE] !== entry.record) problems.push(`${what}: G_RULE ${i32[g + Layout.G_RULE]} != rule record ${entry.record}`);
        if (i32[g + Layout.NEED] < 1 || i32[g + Layout.NEED] > group.drivers.length) problems.push(`${what}: NEED ${i32[g + Layout.NEED]} for ${group.drivers.length} drivers`);
        const own = g + Layout.G_HEAD + i32[g + Layout.G_WORDS];
        if (Layout.G_HEAD + i32[g + Layout.G_WORDS] + i32[g + Layout.G_GROUP_WORDS] !== group.words || !fills(g + Layout.G_HEAD, own) || !fills(own, g + group.words)) {
          problems.push(`${what}: its conditions and groups do not fill its ${group.words} words`);
        }
      }
      targets.add(group.target);
      for (const driver of group.drivers) {
        for (const h of state.drivers.lists(driver)) {
          attached += 1;
          if (h === Layout.NONE) {
            problems.push(`${what}: driver ${driver.key} has a missing list (the rule is unreachable)`);
            continue;
          }
          const block = postings.at[h];
          const first = block + Layout.P_HEAD + i32[block + Layout.P_COND];
          let listed = false;
          for (let e = 0; e < i32[block + Layout.P_LEN]; e++) if (i32[first + Layout.ENTRY_WORDS * e + Layout.E_TARGET] === group.target) listed = true;
          if (!listed) problems.push(`${what}: list #${h} of driver ${driver.key} does not list target ${group.target}`);
        }
      }
    }
  }

  // Posting lists.
  const handles = filedHandles(state);
  let entries = 0;
  for (const h of new Set(handles)) {
    const block = postings.at[h];
    const len = i32[block + Layout.P_LEN];
    const cap = i32[block + Layout.P_CAP];
    const what = `list #${h}`;
    if (!inArena(block, blockWords(Layout.P_HEAD + i32[block + Layout.P_COND] + Layout.ENTRY_WORDS * cap), what)) continue;
    if (len < 1 || len > cap) problems.push(`${what}: LEN ${len} outside 1..CAP ${cap} (an empty list is unfiled)`);
    const first = block + Layout.P_HEAD + i32[block + Layout.P_COND];
    let mask = ~0;
    for (let e = 0; e < len; e++) {
      const target = i32[first + Layout.ENTRY_WORDS * e + Layout.E_TARGET];
      mask &= i32[first + Layout.ENTRY_WORDS * e + Layout.E_MASK];
      if (!targets.has(target)) problems.push(`${what}: entry ${e} names ${target}, no active rule's group`);
    }
    if (len > 0 && mask !== i32[block + Layout.P_MASK]) problems.push(`${what}: P_MASK ${i32[block + Layout.P_MASK]} != AND of its entries ${mask}`);
    entries += len;
  }
  if (entries !== attached) problems.push(`posting entries: ${entries} filed != ${attached} attached by active groups`);

  // Kept lists: a value's own list, or the field's affix and residual lists, for a value id in use.
  for (const slot of state.operands.slots.values()) {
    const live = new Set(slot.valueIds.values());
    const textLists = new Set([...slot.prefixes.byOperand.values(), ...slot.suffixes.byOperand.values(), ...slot.scan.handle.subarray(0, slot.scan.size)]);
    for (const [id, held] of slot.textHeld.entries()) {
      if (held === undefined) continue;
      if (!live.has(id)) problems.push(`field ${slot.name}: a list is kept for value id ${id}, which names no value`);
      for (const h of held) {
        if (h !== slot.textPostings[id] && !textLists.has(h)) problems.push(`field ${slot.name}: value id ${id} keeps list #${h}, not one of its field's text lists`);
      }
    }
    // Their entries' copies (held-entries.ts): each what its lists hold now.
    const { byValue } = slot.heldEntries;
    for (let id = 0; id < byValue.length; id++) {
      if (byValue[id] === 0) continue;
      const held = slot.textHeld[id];
      if (held === undefined) {
        problems.push(`field ${slot.name}: value id ${id} keeps copied entries but no list`);
        continue;
      }
      const kept = recordAt(slot.heldEntries, byValue[id]).join();
      const now = recordOf(held, i32, postings.at).join();
      if (kept !== now) problems.push(`field ${slot.name}: value id ${id} keeps the record [${kept}], its lists make [${now}]`);
    }
  }

  // Arena: live and free blocks tile every word handed out.
  for (const [offset, size] of arena.freeBlocks()) inArena(offset, size, 'free block');
  blocks.sort((a, b) => a[0] - b[0]);
  let covered = FIRST_BLOCK;
  for (const [offset, size, what] of blocks) {
    if (offset < covered) problems.push(`${what} @${offset} overlaps the block before it`);
    else if (offset > covered) problems.push(`words ${covered}..${offset} are neither live nor free`);
    covered = Math.max(covered, offset + size);
  }
  if (covered !== arena.used) problems.push(`words ${covered}..${arena.used} are neither live nor free`);
  return problems;
}
