/**
 * Operator semantics in one place (docs/contract.md, matching semantics):
 * one row per data type and operator saying how the rule's operand is read
 * (and, when it is not one, what to tell the rule author), which typed view
 * of the request value the test reads, how a present value is tested, and
 * how a condition explains its answer. Everything else derives from the table:
 * - compileCondition parses with the row and stamps the row's kind, so the
 *   compiled engine (plan.ts), the audit scan engine and explain all start here;
 * - write-time validation (validate.ts) reports the row's parse problems;
 * - the audit scan engine (src/audit/rule-check.ts) calls `testPredicate`,
 *   explain (src/audit/explain.ts) calls `explainTest`;
 * - the json-rules-engine reference (test/support/reference.ts) registers one
 *   operator per row.
 * The compiled engine's verification (code.ts testCondition) is the one
 * evaluator that reads arena words (interned value ids, float64 operands)
 * instead of predicates, and is kept as its own switch so the evaluate hot
 * path pays no lookup or call per condition (bench: engine). It is checked
 * against this table instead: test/engine/case-table.test.ts runs every row's
 * cases through it, the scan engine, explain and the reference alike.
 */
import { RE2JS } from 're2js';
import type { Condition, DataType, Operator } from './conditions';
import { Layout } from './layout';
import { compileRegex, Kind, makePredicate, regexMatches, type CompiledRegex, type InputView, type Operand, type Predicate } from './predicates';
import { inputBoolean, inputNumber, inputText, parseDecimal, splitBetween, splitList } from './values';

/** Which typed view of the request value a row's test reads (values.ts). */
export type View = 'text' | 'num' | 'bool';

/** A rule's operand as the row read it, or what is wrong with it (messages for the rule author). */
export type Parsed =
  | { readonly operand: Operand; readonly problems?: undefined }
  | { readonly operand?: undefined; readonly problems: readonly string[] };

export interface OperatorRow {
  readonly dataType: DataType;
  readonly operator: Operator;
  /** The predicate kind the row compiles to (boolean not_equals is equals of the other value). */
  readonly kind: Kind;
  readonly reads: View;
  /** Reads the condition's `value`. */
  parse(value: string): Parsed;
  /** Whether a compiled predicate of the row holds for a present value. */
  readonly test: (p: Predicate, v: InputView) => boolean;
}

// ---- Operand parsers: one per operand shape, shared by the rows that take it.

const text = (value: string): Parsed => ({ operand: { canonical: value, text: value } });

function textList(value: string): Parsed {
  const texts = new Set(splitList(value));
  return { operand: { canonical: [...texts].sort().join('\u0000'), texts } };
}

function regex(value: string): Parsed {
  const compiled = compileRegex(value);
  if (compiled === null) return { problems: [`invalid regex ${quote(value)}: ${regexReason(value)}`] };
  return { operand: { canonical: value, text: value, ...compiled } };
}

function decimal(value: string): Parsed {
  const num = parseDecimal(value);
  if (Number.isNaN(num)) return { problems: [`${quote(value)} is not a number${NUMBER_HINT}`] };
  return { operand: { canonical: String(num), num } };
}

function decimalList(value: string): Parsed {
  const nums = new Set<number>();
  const problems: string[] = [];
  splitList(value).forEach((item, i) => {
    const n = parseDecimal(item);
    if (Number.isNaN(n)) problems.push(`list item ${i + 1} (${quote(item)}) is not a number${NUMBER_HINT}`);
    else nums.add(n);
  });
  if (problems.length > 0) return { problems };
  return { operand: { canonical: [...nums].sort((a, b) => a - b).join(','), nums } };
}

function range(value: string): Parsed {
  const bounds = splitBetween(value);
  if (bounds === null) return { problems: [`between needs "lo,hi" (two numbers, one comma), got ${quote(value)}`] };
  const [lo, hi] = bounds.map(parseDecimal);
  const problems: string[] = [];
  if (Number.isNaN(lo)) problems.push(`lower bound ${quote(bounds[0])} is not a number${NUMBER_HINT}`);
  if (Number.isNaN(hi)) problems.push(`upper bound ${quote(bounds[1])} is not a number${NUMBER_HINT}`);
  if (problems.length === 0 && lo > hi) problems.push(`lower bound ${lo} is greater than upper bound ${hi}`);
  if (problems.length > 0) return { problems };
  return { operand: { canonical: `${lo},${hi}`, num: lo, num2: hi } };
}

/** Boolean operands; `negate` for not_equals, which (inputs being booleans for either operator) is equals of the other value. */
function boolean(negate: boolean): (value: string) => Parsed {
  return (value) => {
    if (value !== 'true' && value !== 'false') return { problems: [`a boolean value must be "true" or "false", got ${quote(value)}`] };
    const wanted = (value === 'true') !== negate;
    return { operand: { canonical: String(wanted), num: wanted ? Layout.BOOL_TRUE : Layout.BOOL_FALSE } };
  };
}

const NUMBER_HINT = ' (write a finite decimal like 42, -0.5 or 4.2e1)';

/** Why re2js rejects `pattern` (only asked once compileRegex has refused it). */
function regexReason(pattern: string): string {
  try {
    RE2JS.compile(pattern);
    return 'unsupported pattern';
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return message.replace(/^error parsing regexp: /, '');
  }
}

/** A rule author's text in a message, cut to 80 characters. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

// ---- Value tests: NaN (not a number) fails every number comparison, including the negations.

type Test = OperatorRow['test'];
const textEquals: Test = (p, v) => v.text === p.text;
const numEquals: Test = (p, v) => v.num === p.num;
const boolEquals: Test = (p, v) => v.bool === p.num;

function row(dataType: DataType, operator: Operator, kind: Kind, reads: View, parse: (value: string) => Parsed, test: Test): OperatorRow {
  return { dataType, operator, kind, reads, parse, test };
}

/** The table: every data type and operator of conditions.ts OPERATORS_BY_TYPE, once (test/engine/operators.test.ts). */
export const OPERATOR_ROWS: readonly OperatorRow[] = [
  row('string', 'equals', Kind.TEXT_EQ, 'text', text, textEquals),
  row('string', 'not_equals', Kind.TEXT_NE, 'text', text, (p, v) => v.text !== p.text),
  row('string', 'contains', Kind.CONTAINS, 'text', text, (p, v) => v.text.includes(p.text)),
  row('string', 'not_contains', Kind.NOT_CONTAINS, 'text', text, (p, v) => !v.text.includes(p.text)),
  row('string', 'starts_with', Kind.STARTS_WITH, 'text', text, (p, v) => v.text.startsWith(p.text)),
  row('string', 'ends_with', Kind.ENDS_WITH, 'text', text, (p, v) => v.text.endsWith(p.text)),
  // A regex predicate carries its compiled regex's members (re non-null once compiled).
  row('string', 'regex', Kind.REGEX, 'text', regex, (p, v) => p.re !== null && regexMatches(p as CompiledRegex, v.text)),
  row('string', 'in', Kind.TEXT_IN, 'text', textList, (p, v) => p.texts.has(v.text)),
  row('string', 'not_in', Kind.TEXT_NOT_IN, 'text', textList, (p, v) => !p.texts.has(v.text)),
  row('number', 'equals', Kind.NUM_EQ, 'num', decimal, numEquals),
  row('number', 'not_equals', Kind.NUM_NE, 'num', decimal, (p, v) => v.num === v.num && v.num !== p.num),
  row('number', 'gt', Kind.NUM_GT, 'num', decimal, (p, v) => v.num > p.num),
  row('number', 'gte', Kind.NUM_GTE, 'num', decimal, (p, v) => v.num >= p.num),
  row('number', 'lt', Kind.NUM_LT, 'num', decimal, (p, v) => v.num < p.num),
  row('number', 'lte', Kind.NUM_LTE, 'num', decimal, (p, v) => v.num <= p.num),
  row('number', 'between', Kind.BETWEEN, 'num', range, (p, v) => v.num >= p.num && v.num <= p.num2),
  row('number', 'in', Kind.NUM_IN, 'num', decimalList, (p, v) => p.nums.has(v.num)),
  row('number', 'not_in', Kind.NUM_NOT_IN, 'num', decimalList, (p, v) => v.num === v.num && !p.nums.has(v.num)),
  row('boolean', 'equals', Kind.BOOL_EQ, 'bool', boolean(false), boolEquals),
  row('boolean', 'not_equals', Kind.BOOL_EQ, 'bool', boolean(true), boolEquals),
];

const BY_NAME = new Map(OPERATOR_ROWS.map((r) => [`${r.dataType}:${r.operator}`, r]));

/** Per kind, from the rows (rows sharing a kind share its test and view). */
const TEST_OF: Test[] = [];
const VIEW_OF: View[] = [];
for (const r of OPERATOR_ROWS) {
  if (TEST_OF[r.kind] !== undefined && (TEST_OF[r.kind] !== r.test || VIEW_OF[r.kind] !== r.reads)) {
    throw new Error(`operator table: rows of kind ${r.kind} disagree`);
  }
  TEST_OF[r.kind] = r.test;
  VIEW_OF[r.kind] = r.reads;
}

/** The row for a condition's data type (absent: string, contract §2) and operator; undefined when there is none. */
export function operatorRow(dataType: unknown, operator: unknown): OperatorRow | undefined {
  const type = dataType === undefined ? 'string' : dataType;
  if (typeof type !== 'string' || typeof operator !== 'string') return undefined;
  return BY_NAME.get(`${type}:${operator}`);
}

/** The view of the request value a predicate kind reads. */
export function viewOf(kind: Kind): View {
  return VIEW_OF[kind]!;
}

/** Compiles a condition; null when it can never be true (invalid operand, operator or type). Pure. */
export function compileCondition(condition: Condition): Predicate | null {
  if (condition === null || typeof condition !== 'object') return null;
  const { field, value } = condition;
  if (typeof field !== 'string' || typeof value !== 'string') return null;
  const r = operatorRow(condition.data_type, condition.operator);
  if (r === undefined) return null;
  const { operand } = r.parse(value);
  return operand === undefined ? null : makePredicate(r.kind, field, operand);
}

/** Whether `p` holds for a present value. Absence is the caller's business (it makes every predicate false). */
export function testPredicate(p: Predicate, v: InputView): boolean {
  return TEST_OF[p.kind]!(p, v);
}

/**
 * The typed views of a request value, or undefined when it counts as absent:
 * null (a client's "not known"), a number JSON cannot carry (NaN, infinities),
 * an object. Every condition on an absent value is false, negations too (contract §2).
 */
export function readValue(value: unknown): InputView | undefined {
  const asText = inputText(value);
  if (asText === null) return undefined;
  const present = value as string | number | boolean;
  return { text: asText, num: inputNumber(present), bool: inputBoolean(present) };
}

/** How a condition explains its answer (explain's `reason`, docs/contract.md). */
export type ConditionReason = 'holds' | 'field absent' | 'not a number' | 'not a boolean' | 'comparison false' | 'invalid condition';

/** Why a value without the view a row reads fails it. */
const UNREADABLE: { readonly [V in View]: { readonly reason: ConditionReason; readonly lacks: (v: InputView) => boolean } } = {
  text: { reason: 'comparison false', lacks: () => false },
  num: { reason: 'not a number', lacks: (v) => Number.isNaN(v.num) },
  bool: { reason: 'not a boolean', lacks: (v) => v.bool === Layout.NOT_BOOL },
};

/** A condition's answer with its reason; `predicate` null is an invalid condition, `view` undefined an absent field. */
export function explainTest(predicate: Predicate | null, view: InputView | undefined): { result: boolean; reason: ConditionReason } {
  if (predicate === null) return { result: false, reason: 'invalid condition' };
  if (view === undefined) return { result: false, reason: 'field absent' };
  const unreadable = UNREADABLE[viewOf(predicate.kind)];
  if (unreadable.lacks(view)) return { result: false, reason: unreadable.reason };
  // Same call the scan engine makes for a present value.
  const result = testPredicate(predicate, view);
  return { result, reason: result ? 'holds' : 'comparison false' };
}
