/**
 * What a change request would do, asked before it is approved (issue 67
 * item 3, docs/change-requests.md#impact-and-test-cases): its impact on the
 * recorded decisions of a window (impact.ts, ADR 0065), and the test cases
 * run against the catalog it would produce (test-cases.ts, ADR 0067). The
 * cases run are the ones the request sets, when it sets them; else the
 * node's set as it is.
 */
import type { ChangeRequestRecord } from '../../projections/change-control';
import { AppError, badRequest } from '../base/errors';
import { parseTestCaseBody } from '../domain/test-cases';
import type { ReadModel } from '../read-model/read-model';
import { decisionsWithin, impactOf, impactWindow, IMPACT_WINDOW_MS, type ImpactReport } from './impact';
import { proposedState, readChanges } from './proposed-state';
import type { AuditDeps } from './service';
import { evaluatorOver, parseCases, runCases, type CasesReport } from './test-cases';

export interface CaseChecksDeps {
  readonly readModel: ReadModel;
  readonly limits: AuditDeps['limits'];
  readonly clock: () => number;
}

export interface RequestChecksDeps extends CaseChecksDeps {
  /** The decision sink's folder, and a flush of what it has queued (a report reads what was answered up to now). */
  readonly decisionsDir: string;
  readonly flushDecisions: () => void;
  /** RULEVAULT_IMPACT_MAX_DECISIONS. */
  readonly maxDecisions: number;
}

/** The test cases a request runs, and how each did against its proposed catalog. */
export interface RequestTestResults extends CasesReport {
  /** `request`: the cases its set-test-cases proposes; `current`: the node's set. */
  readonly source: 'request' | 'current';
  /** The node's set's revision the cases were read at (current), or null. */
  readonly test_cases_revision: string | null;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function readTime(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = ISO_TIME.test(value) ? Date.parse(value) : NaN;
  if (!Number.isFinite(ms)) throw badRequest(`${name} must be an ISO 8601 time with a zone, like 2026-01-31T12:00:00Z`);
  return ms;
}

/** The test cases of requests: what the approve command checks (in the writer), and the test-results route. */
export function createCaseChecks({ readModel, limits, clock }: CaseChecksDeps) {
  /** The request's proposed catalog over the live one: a 409 when a change is pinned to a revision its resource has left. */
  const proposalOf = (record: ChangeRequestRecord, nowMs: number) => proposedState(readModel.state, readModel.engine, readChanges(record.changes), {
    maxRegexLength: limits.maxRegexLength, templateLimits: limits, at: new Date(nowMs).toISOString(),
  });

  async function testResults(record: ChangeRequestRecord): Promise<RequestTestResults> {
    const nowMs = clock();
    const proposed = [...record.changes].reverse().find((c) => c.op === 'set-test-cases');
    const current = readModel.state.changeControl.testCases;
    const text = proposed !== undefined ? parseTestCaseBody(proposed.body).text : current?.text ?? '';
    const cases = text === '' ? [] : parseCases(text);
    const proposal = proposalOf(record, nowMs);
    const report = await runCases(cases, evaluatorOver(proposal.reads, proposal.engine, limits, () => nowMs));
    return {
      source: proposed === undefined ? 'current' : 'request',
      test_cases_revision: proposed === undefined ? current?.revision.toString() ?? null : null,
      ...report,
    };
  }

  return {
    testResults,

    /**
     * The cases the request fails, for its approval. None when its changes no longer lay over the catalog (a pinned
     * resource moved, a linked one is gone): its apply goes stale then, and nothing it holds publishes.
     */
    async failingCases(record: ChangeRequestRecord): Promise<{ readonly name: string; readonly line: number }[]> {
      let results: RequestTestResults;
      try {
        results = await testResults(record);
      } catch (error) {
        if (error instanceof AppError && (error.code === 'conflict' || error.code === 'bad_request')) return [];
        throw error;
      }
      return results.cases.filter((c) => !c.pass).map(({ name, line }) => ({ name, line }));
    },
  };
}

/** A request's impact report and its test results, as the routes answer them. */
export function createRequestChecks(deps: RequestChecksDeps) {
  const { readModel, limits, decisionsDir, flushDecisions, maxDecisions, clock } = deps;
  return {
    testResults: createCaseChecks(deps).testResults,

    /** GET /api/change-requests/:id/impact: `since` and `until` (ISO times) bound the window, by default the last 7 days. */
    async impact(record: ChangeRequestRecord, query: { readonly since?: string; readonly until?: string }): Promise<ImpactReport> {
      const nowMs = clock();
      const until = readTime(query.until, 'until') ?? nowMs;
      const since = readTime(query.since, 'since') ?? until - IMPACT_WINDOW_MS;
      if (since > until) throw badRequest('since must not be after until');
      const window = impactWindow(until, until - since);
      flushDecisions();
      return impactOf({
        state: readModel.state, engine: readModel.engine, proposed: record.changes, decisions: decisionsWithin(decisionsDir, window),
        window, limits, maxDecisions, nowMs,
      });
    },
  };
}

export type RequestChecks = ReturnType<typeof createRequestChecks>;
