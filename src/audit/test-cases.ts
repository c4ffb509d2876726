/**
 * Test cases for a rule set (issue 67, ADR 0066): an NDJSON file, one case a
 * line, each an evaluate request (`entity_type`, `fields`) and what its
 * answer must hold (`expect`): the matching rule ids, the entity ids, and
 * the split variant of named rules. Ids, not names: they are what evaluate
 * answers, they never change with a rename, and a case file means the same
 * against a running service and offline against its data folder.
 *
 * Pure: `parseCases` (src/domain/test-cases.ts, where a change request's
 * `set-test-cases` is checked too) reads a file's text (errors name the line), `runCases`
 * runs the cases through any evaluate function (HTTP, a data folder's
 * catalog, or the catalog a change request would produce:
 * `evaluatorOver(proposal.reads, proposal.engine, limits)`) and says per
 * case whether it passed, with a diff when not.
 */
import { AppError } from '../base/errors';
import type { TestCase } from '../domain/test-cases';
import type { Engine } from '../engine';
import { evaluate, parseEvaluateRequest, type AnsweredLink, type EvaluationReads, type PromptLimits } from '../service/evaluate';
import type { Limits } from '../base/limits';

export { CaseFileError, MAX_CASES, parseCases, type TestCase } from '../domain/test-cases';

/** The part of an evaluate answer a case checks. */
export interface CaseAnswer {
  readonly matchingRuleIds: readonly string[];
  readonly entities: readonly Pick<AnsweredLink, 'rule_id' | 'entity_id' | 'variant'>[];
}

/** Evaluates one case's request; throws CaseRefused when the request is refused (any other error stops the run). */
export type EvaluateFn = (request: { readonly entity_type: string; readonly fields: Record<string, unknown> }) => Promise<CaseAnswer> | CaseAnswer;

export interface CaseDiff {
  readonly rules?: { readonly missing: string[]; readonly unexpected: string[] };
  readonly entities?: { readonly missing: string[]; readonly unexpected: string[] };
  readonly variants?: { readonly rule_id: string; readonly expected: string | null; readonly actual: string | null }[];
}

export interface CaseResult {
  readonly name: string;
  readonly line: number;
  readonly pass: boolean;
  /** Present when it failed on the answer. */
  readonly diff?: CaseDiff;
  /** Present when the request was refused (its message). */
  readonly error?: string;
}

export interface CasesReport {
  readonly passed: number;
  readonly failed: number;
  readonly cases: CaseResult[];
}

/** An evaluate function's refusal of one case's request (a 400): that case fails, the others still run. */
export class CaseRefused extends Error {}

/** Runs every case through `evaluateFn`, one after another, in file order. */
export async function runCases(cases: readonly TestCase[], evaluateFn: EvaluateFn): Promise<CasesReport> {
  const results: CaseResult[] = [];
  for (const item of cases) {
    let answer: CaseAnswer;
    try {
      answer = await evaluateFn({ entity_type: item.entity_type, fields: item.fields });
    } catch (error) {
      if (!(error instanceof CaseRefused)) throw error;
      results.push({ name: item.name, line: item.line, pass: false, error: error.message });
      continue;
    }
    const diff = diffCase(item, answer);
    results.push(diff === undefined ? { name: item.name, line: item.line, pass: true } : { name: item.name, line: item.line, pass: false, diff });
  }
  const passed = results.filter((r) => r.pass).length;
  return { passed, failed: results.length - passed, cases: results };
}

/** What the answer misses or has beyond the case's expectations; undefined when it meets them. */
export function diffCase(item: TestCase, answer: CaseAnswer): CaseDiff | undefined {
  const diff: { -readonly [K in keyof CaseDiff]: CaseDiff[K] } = {};
  const { rules, entities, variants } = item.expect;
  if (rules !== undefined) {
    const d = setDiff(rules, answer.matchingRuleIds);
    if (d !== undefined) diff.rules = d;
  }
  if (entities !== undefined) {
    const d = setDiff(entities, answer.entities.map((e) => e.entity_id));
    if (d !== undefined) diff.entities = d;
  }
  if (variants !== undefined) {
    const actual = new Map<string, string>();
    for (const e of answer.entities) if (e.variant !== null) actual.set(e.rule_id, e.variant);
    const wrong = Object.entries(variants)
      .map(([rule_id, expected]) => ({ rule_id, expected, actual: actual.get(rule_id) ?? null }))
      .filter((v) => v.expected !== v.actual);
    if (wrong.length > 0) diff.variants = wrong;
  }
  return Object.keys(diff).length === 0 ? undefined : diff;
}

function setDiff(expected: readonly string[], actual: readonly string[]): { missing: string[]; unexpected: string[] } | undefined {
  const want = new Set(expected);
  const got = new Set(actual);
  const missing = [...want].filter((id) => !got.has(id)).sort();
  const unexpected = [...got].filter((id) => !want.has(id)).sort();
  return missing.length + unexpected.length === 0 ? undefined : { missing, unexpected };
}

/**
 * An EvaluateFn over a catalog in this process: a data folder's (folded, with a scan engine), or the one a change
 * request would produce (proposed-state.ts: its `reads` and `engine`). Split schedules are read at `nowMs()`.
 */
export function evaluatorOver(
  reads: EvaluationReads, engine: Pick<Engine, 'evaluate'>, limits: Pick<Limits, 'maxFields' | 'maxFieldKeyLength' | 'maxFieldValueLength'> & PromptLimits,
  nowMs: () => number = Date.now,
): EvaluateFn {
  return (request) => {
    try {
      return evaluate(reads, engine, parseEvaluateRequest(request, limits, nowMs()), limits);
    } catch (error) {
      if (error instanceof AppError && error.code === 'bad_request') throw new CaseRefused(`evaluate refused the case: ${error.message}`);
      throw error;
    }
  };
}

/** Lines for people: one per case, and the diff under a failing one. */
export function describeCases(report: CasesReport): string[] {
  const lines: string[] = [];
  for (const result of report.cases) {
    lines.push(`${result.pass ? 'ok  ' : 'FAIL'}  ${result.name}  (line ${result.line})`);
    if (result.error !== undefined) lines.push(`      error: ${result.error}`);
    const { rules, entities, variants } = result.diff ?? {};
    for (const [what, d] of [['rules', rules], ['entities', entities]] as const) {
      if (d === undefined) continue;
      for (const id of d.missing) lines.push(`      - ${what}: ${id} expected, not answered`);
      for (const id of d.unexpected) lines.push(`      + ${what}: ${id} answered, not expected`);
    }
    for (const v of variants ?? []) lines.push(`      ~ variant of rule ${v.rule_id}: expected ${JSON.stringify(v.expected)}, answered ${JSON.stringify(v.actual)}`);
  }
  lines.push(`${report.passed} passed, ${report.failed} failed`);
  return lines;
}
