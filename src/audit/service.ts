/**
 * The auditor's product minus HTTP: the filtered log, evaluate as of any
 * point, explain, dry-run, and the digest of the live read models. One function per
 * route; every input is validated here (400 naming the member).
 */
import type { Limits } from '../base/config';
import { isPlainObject } from '../domain/input';
import { badRequest } from '../base/errors';
import type { ReadModel } from '../read-model/read-model';
import { evaluate, parseEvaluateRequest, type EvaluateRequest, type PromptLimits } from '../service/evaluate';
import { readAllRules } from '../service/read-ahead';
import { toJsonPosition, type EventStore } from '../store/port';
import { readEventPage } from './audit-log';
import type { DecisionRecord } from './decision-log';
import { maskedFieldNames, recordedPoint, replayBody, replayReport } from './decision-replay';
import { digestStateInSlices } from './digest';
import { dryRun } from './dry-run';
import { decisionEvidence, type BuildOptions } from './evidence';
import { eventCursor, parseEventQuery, type EventQueryText } from './event-filter';
import { checkNamedRules, explainRules, readExplainOptions, type ExplainOptions } from './explain';
import { fieldsReadInSlices, scanInSlices } from './rule-check';
import { createTimeTravel, parseAsOf, type AsOf, type PointInTime, type TimeTravelOptions } from './time-travel';

export interface AuditDeps {
  readonly store: EventStore;
  readonly readModel: ReadModel;
  readonly limits: Pick<Limits, 'maxFields' | 'maxFieldKeyLength' | 'maxFieldValueLength' | 'maxRegexLength'> & PromptLimits;
  /** The server's time in ms: live explain and dry-run read split schedules at it. */
  readonly clock: () => number;
  readonly timeTravel?: TimeTravelOptions;
}

interface ExplainInput {
  readonly request: EvaluateRequest;
  readonly options: ExplainOptions;
}

function parseExplainInput(body: unknown, limits: AuditDeps['limits'], atMs: number): ExplainInput {
  return { request: parseEvaluateRequest(body, limits, atMs), options: readExplainOptions(body) };
}

/**
 * The time an audit evaluate reads split schedules at: an `as_of` time itself; for a position, the time of
 * its event (when the state it names began; docs/auditors.md#splits-as-of). The empty log: 0.
 */
function timeOfPoint(asOf: AsOf, point: PointInTime): number {
  return asOf.kind === 'time' ? Date.parse(asOf.at) : point.at === undefined ? 0 : Date.parse(point.at);
}

/** The audit functions over one store and the node's live read model. */
export function createAuditService({ store, readModel, limits, clock, timeTravel: options }: AuditDeps) {
  const timeTravel = createTimeTravel(store, options);
  return {
    /** A page of the log, filtered; see event-filter.ts and audit-log.ts. */
    async events(query: EventQueryText) {
      const page = await readEventPage(store, parseEventQuery(query));
      return { ...page, next_cursor: eventCursor(page.next) };
    },

    /** What evaluate answered at `as_of`, optionally with the explanation. */
    async evaluateAsOf(body: unknown) {
      const asOf = parseAsOf(isPlainObject(body) ? body.as_of : undefined);
      const { request: parsed, options } = parseExplainInput(body, limits, 0);
      const explain = (body as { explain?: unknown }).explain;
      if (explain !== undefined && typeof explain !== 'boolean') throw badRequest('explain must be a boolean');
      const point = await timeTravel.at(asOf);
      const request = { ...parsed, atMs: timeOfPoint(asOf, point) };
      if (explain === true) checkNamedRules(options, point.state.rules);
      const answer = await evaluateAt(point, request, limits);
      const explained = explain === true ? explainRules(point.state.rules, request.fields, request.atMs, answer.matchingRuleIds, options) : undefined;
      return {
        ...answer,
        as_of: { position: point.position === undefined ? null : toJsonPosition(point.position), at: point.at ?? null },
        ...(explained === undefined ? {} : { explain: explained.rules, explain_omitted_rule_ids: explained.omitted_rule_ids }),
      };
    },

    /**
     * A decision record evaluated again and compared with its answer: at its
     * own position, or at `asOf` (a position, an ISO time, or `head`: the
     * log's last event now).
     */
    async replayDecision(record: DecisionRecord, asOf?: string) {
      // At the record's own time, whatever point it is replayed at: the question is what the rules there answer this request.
      const request = parseEvaluateRequest(replayBody(record), limits, Date.parse(record.at));
      const point = await timeTravel.at(
        asOf === undefined ? recordedPoint(record) : asOf === 'head' ? { kind: 'position', position: (await store.headPosition()) ?? 0n } : parseAsOf(asOf),
      );
      const answer = await evaluateAt(point, request, limits);
      return replayReport(record, answer, point, await fieldsReadInSlices(point.engine, maskedFieldNames(record)));
    },

    /** The read models as they were at `as_of` (a position or an ISO time, as audit evaluate takes it), and that point. */
    async stateAsOf(asOf: string) {
      const point = await timeTravel.at(parseAsOf(asOf));
      return { state: point.state, as_of: { position: point.position === undefined ? null : toJsonPosition(point.position), at: point.at ?? null } };
    },

    /** The evidence file of decision `id` (evidence.ts), as `rulevault audit evidence` writes it. */
    evidence: (auditDir: string, id: string, options: BuildOptions) => decisionEvidence(store, auditDir, id, options),
    explain: (body: unknown) => explainLive(readModel, limits, body, clock()),
    /** Evaluate over the live rules with draft rules beside or in place of them, explained; writes nothing (dry-run.ts). */
    dryRun: (body: unknown) => dryRun(readModel.state, readModel.engine, body, limits, clock()),
    /** Every rule record is in the digest: those a snapshot start left unread are read first, in slices (read-ahead.ts). */
    digest: async () => {
      await readAllRules(readModel.state.rules);
      return digestStateInSlices(readModel.state);
    },
  };
}

/** Evaluate over a point's rules, scanned in slices so the node goes on answering meanwhile. */
async function evaluateAt(point: PointInTime, request: EvaluateRequest, limits: AuditDeps['limits']) {
  const matched = await scanInSlices(point.engine, request.fields);
  return evaluate(point.state, { evaluate: () => matched }, request, limits);
}

/** Per-rule, per-condition reasons against the live rules (POST /api/rule-engine/explain): the matched and the named rules. */
function explainLive(readModel: ReadModel, limits: AuditDeps['limits'], body: unknown, atMs: number) {
  const { request, options } = parseExplainInput(body, limits, atMs);
  const state = readModel.state;
  checkNamedRules(options, state.rules);
  const explained = explainRules(state.rules, request.fields, atMs, readModel.engine.evaluate(request.fields), options);
  return { position: state.position === undefined ? null : toJsonPosition(state.position), ...explained };
}

export type AuditService = ReturnType<typeof createAuditService>;
