/**
 * Debugging tools over an engine's arena (layout.ts): `dumpRule` renders one
 * rule's records, drivers and verify code; `checkInvariants` lists every way
 * the records, posting lists and free lists disagree with each other (the
 * property tests call it after random upserts and removals). Both read only,
 * and neither is on the evaluation path.
 */
import { blockWords, FIRST_BLOCK } from './arena';
import { sizeAt } from './code';
import {
  C_COUNT, C_IDS, C_NUM, C_NUM2, C_NUMS, C_OPERAND, C_SLOT, C_TAG, ENTRY_WORDS, E_MASK, E_TARGET, G_GROUP_WORDS, G_HEAD, G_INDEX,
  G_RULE, G_WORDS, GROUP_AND, GROUP_HEAD, KIND_MASK, NEED, NEVER_MATCHES, NONE, P_CAP, P_COND, P_HEAD, P_LEN, P_MASK, R_HEAD,
  R_INDEX, R_WORDS, RULE_TARGET_BELOW,
} from './layout';
import { Kind, type Predicate } from './predicates';
import { internalsOf, type EngineInternals } from './state';
import type { Engine } from './types';

const KIND_NAMES: string[] = [];
for (const [name, kind] of Object.entries(Kind)) KIND_NAMES[kind] = name;

/** The words [from, to) as a list. */
const words = (i32: Int32Array, from: number, to: number): string => `[${Array.from(i32.subarray(from, to)).join(', ')}]`;

/** One condition in readable form: its kind, field and operands (value ids and pool indexes resolved). */
function describeCondition(state: EngineInternals, at: number): string {
  const { i32, f64 } = state.arena;
  const kind = i32[at + C_TAG] & KIND_MASK;
  const slotIndex = i32[at + C_SLOT];
  const slot = [...state.operands.slots.values()].find((s) => s.index === slotIndex);
  const field = slot?.name ?? `slot ${slotIndex}`;
  const textOf = (id: number): string => JSON.stringify([...(slot?.valueIds ?? [])].find(([, v]) => v === id)?.[0] ?? `#${id}`);
  const operand = i32[at + C_OPERAND];
  const f = at >> 1;
  let text: string;
  switch (kind) {
    case Kind.TEXT_EQ: case Kind.TEXT_NE: text = textOf(operand); break;
    case Kind.TEXT_IN: case Kind.TEXT_NOT_IN:
      text = Array.from(i32.subarray(at + C_IDS, at + C_IDS + i32[at + C_COUNT]), textOf).join(',');
      break;
    case Kind.STARTS_WITH: case Kind.ENDS_WITH: case Kind.CONTAINS: case Kind.NOT_CONTAINS:
      text = JSON.stringify(state.operands.view.strings[operand]);
      break;
    case Kind.REGEX: text = `regex #${operand}`; break;
    case Kind.BOOL_EQ: text = String(operand === 1); break;
    case Kind.BETWEEN: text = `${f64[f + C_NUM]},${f64[f + C_NUM2]}`; break;
    case Kind.NUM_IN: case Kind.NUM_NOT_IN: text = Array.from(f64.subarray(f + C_NUMS, f + C_NUMS + i32[at + C_COUNT])).join(','); break;
    default: text = String(f64[f + C_NUM]);
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
function conditionLines(state: EngineInternals, from: number, to: number, indent: string): string[] {
  const i32 = state.arena.i32;
  const lines: string[] = [];
  for (let p = from; p < to; p += sizeAt(i32, p)) {
    lines.push(`${indent}@${p} ${words(i32, p, p + sizeAt(i32, p))}  ${describeCondition(state, p)}`);
  }
  return lines;
}

/** Lines for the verify groups in [from, to). */
function groupLines(state: EngineInternals, from: number, to: number, indent: string): string[] {
  const i32 = state.arena.i32;
  const lines: string[] = [];
  for (let q = from; q < to; q += sizeAt(i32, q)) {
    const operator = (i32[q + C_TAG] & KIND_MASK) === GROUP_AND ? 'AND' : 'OR';
    lines.push(`${indent}@${q} ${words(i32, q, q + GROUP_HEAD)}  ${operator} group`);
    lines.push(...conditionLines(state, q + GROUP_HEAD, q + sizeAt(i32, q), `${indent}  `));
  }
  return lines;
}

/** The used words of the posting block behind `handle`. */
function postingWords(state: EngineInternals, handle: number): string {
  const i32 = state.arena.i32;
  const block = state.postings.at[handle];
  return `@${block} ${words(i32, block, block + P_HEAD + i32[block + P_COND] + ENTRY_WORDS * i32[block + P_LEN])}`;
}

/**
 * One rule as the arena holds it: each group record's words (header, then
 * its verify conditions, then any inlined verify groups), the posting lists
 * its drivers feed, and its rule record. Words are shown as stored, so the
 * dump is what layout.ts's worked example documents.
 */
export function dumpRule(engine: Engine, ruleId: string): string {
  const state = internalsOf(engine);
  const entry = state.rules.get(ruleId);
  if (entry === undefined) return `rule ${JSON.stringify(ruleId)}: not active`;
  if (entry.index === NEVER_MATCHES) return `rule ${JSON.stringify(ruleId)}: never matches (no records)`;
  const i32 = state.arena.i32;
  const lines = [`rule ${JSON.stringify(ruleId)} number ${entry.index}`];
  for (const group of entry.groups) {
    if (group.offset === NONE) {
      lines.push(`group: no record, one hit decides the rule (posting target ${group.target} = ~${entry.index})`);
    } else {
      const g = group.offset;
      const end = g + G_HEAD + i32[g + G_WORDS];
      lines.push(`group record @${g} ${words(i32, g, g + G_HEAD)}`);
      lines.push(...conditionLines(state, g + G_HEAD, end, '  '));
      lines.push(...groupLines(state, end, end + i32[g + G_GROUP_WORDS], '  '));
    }
    for (const driver of group.drivers) {
      lines.push(`  driver ${driver.field} ${KIND_NAMES[driver.kind]} ${operandsOf(driver)}`);
      for (const h of state.drivers.lists(driver)) lines.push(`    list #${h} ${h === NONE ? 'missing' : postingWords(state, h)}`);
    }
  }
  if (entry.record !== NONE) {
    const r = entry.record;
    lines.push(`rule record @${r} ${words(i32, r, r + R_HEAD)}`);
    lines.push(...groupLines(state, r + R_HEAD, r + R_HEAD + i32[r + R_WORDS], '  '));
  }
  return lines.join('\n');
}
