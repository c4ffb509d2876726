/**
 * The test-case file's format (ADR 0066): NDJSON, one case a line, each an
 * evaluate request and what its answer must hold. Read here, below the
 * audit module that runs the cases, because a change request's
 * `set-test-cases` is checked where its changes are decided (ADR 0067).
 */
import { badRequest } from '../base/errors';
import { ENTITY_TYPES } from '../events';
import { isPlainObject, readMembers } from './input';

export interface TestCase {
  readonly name: string;
  /** The file's line (1-based). */
  readonly line: number;
  readonly entity_type: string;
  readonly fields: Record<string, unknown>;
  readonly expect: {
    /** Exactly these rule ids match (order ignored); absent: not checked. */
    readonly rules?: readonly string[];
    /** Exactly these entity ids are answered (order and repeats ignored); absent: not checked. */
    readonly entities?: readonly string[];
    /** Each named rule answers with this split variant (null: with none, or it does not match). */
    readonly variants?: Readonly<Record<string, string | null>>;
  };
}

/** A test-case file's mistake, naming the line. */
export class CaseFileError extends Error {
  constructor(readonly line: number, message: string) {
    super(`line ${line}: ${message}`);
  }
}

/** Cases one file may hold. */
export const MAX_CASES = 10_000;
const CASE_MEMBERS = ['name', 'entity_type', 'fields', 'expect'];
const EXPECT_MEMBERS = ['rules', 'entities', 'variants'];

/** Reads an NDJSON test-case file (blank lines skipped); throws CaseFileError naming the first bad line. */
export function parseCases(text: string): TestCase[] {
  const cases: TestCase[] = [];
  const names = new Map<string, number>();
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  lines.forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new CaseFileError(line, `not JSON (${(error as Error).message}); each line is one case, a JSON object`);
    }
    const item = readCase(value, line);
    const earlier = names.get(item.name);
    if (earlier !== undefined) throw new CaseFileError(line, `name ${JSON.stringify(item.name)} repeats line ${earlier}'s: each case has its own name`);
    names.set(item.name, line);
    if (cases.length === MAX_CASES) throw new CaseFileError(line, `more than ${MAX_CASES} cases`);
    cases.push(item);
  });
  if (cases.length === 0) throw new CaseFileError(1, 'the file holds no case');
  return cases;
}

function readCase(value: unknown, line: number): TestCase {
  const fail = (message: string) => new CaseFileError(line, message);
  if (!isPlainObject(value)) throw fail('a case must be a JSON object {name, entity_type, fields, expect}');
  const unknown = Object.keys(value).find((key) => !CASE_MEMBERS.includes(key));
  if (unknown !== undefined) throw fail(`unknown member ${JSON.stringify(unknown.slice(0, 64))}; a case has ${CASE_MEMBERS.join(', ')}`);
  if (typeof value.name !== 'string' || value.name.trim() === '') throw fail('name is required: a non-empty string');
  if (!(ENTITY_TYPES as readonly unknown[]).includes(value.entity_type)) throw fail(`entity_type must be one of ${ENTITY_TYPES.join(', ')}`);
  if (!isPlainObject(value.fields)) throw fail('fields must be an object of field names to values');
  const expect = value.expect;
  if (!isPlainObject(expect)) throw fail('expect is required: an object with rules, entities and/or variants');
  const unknownExpect = Object.keys(expect).find((key) => !EXPECT_MEMBERS.includes(key));
  if (unknownExpect !== undefined) throw fail(`expect has an unknown member ${JSON.stringify(unknownExpect.slice(0, 64))}; it has ${EXPECT_MEMBERS.join(', ')}`);
  if (Object.keys(expect).length === 0) throw fail('expect checks nothing: give rules, entities or variants');
  const ids = (member: 'rules' | 'entities') => {
    const list = expect[member];
    if (list === undefined) return undefined;
    if (!Array.isArray(list) || !list.every((id) => typeof id === 'string')) throw fail(`expect.${member} must be an array of ${member === 'rules' ? 'rule' : 'entity'} ids`);
    return list as string[];
  };
  const variants = expect.variants;
  if (variants !== undefined && (!isPlainObject(variants) || !Object.values(variants).every((v) => typeof v === 'string' || v === null))) {
    throw fail('expect.variants must be an object of rule ids to a variant name (or null)');
  }
  const rules = ids('rules');
  const entities = ids('entities');
  return {
    name: value.name,
    line,
    entity_type: value.entity_type as string,
    fields: value.fields,
    expect: {
      ...(rules === undefined ? {} : { rules }),
      ...(entities === undefined ? {} : { entities }),
      ...(variants === undefined ? {} : { variants: variants as Record<string, string | null> }),
    },
  };
}

/** A set-test-cases body, `{"cases": <NDJSON text> | [case, ...]}`, as the NDJSON stored and its cases; empty clears the set. */
export function parseTestCaseBody(body: unknown, path = 'body'): { readonly text: string; readonly cases: TestCase[] } {
  const object = readMembers(body, path, ['cases']);
  const value = object.cases;
  let text: string;
  if (typeof value === 'string') text = value;
  else if (Array.isArray(value)) text = value.map((item) => JSON.stringify(item)).join('\n');
  else throw badRequest(`${path}.cases is required: the test cases as NDJSON text (one case a line) or a JSON array of cases`);
  if (text.trim() === '') return { text: '', cases: [] };
  try {
    return { text, cases: parseCases(text) };
  } catch (error) {
    if (!(error instanceof CaseFileError)) throw error;
    // An array's item i is the file's line i + 1.
    throw badRequest(`${path}.cases${Array.isArray(value) ? `[${error.line - 1}]` : ''}: ${error.message}`);
  }
}
