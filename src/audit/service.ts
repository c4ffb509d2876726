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
import { eventCursor, parseEventQuery, type EventQueryText } from './event-filter';
import { checkNamedRules, explainRules, readExplainOptions, type ExplainOptions } from './explain';
import { fieldsReadInSlices, scanInSlices } from './rule-check';
import { createTimeTravel, parseAsOf, type PointInTime, type TimeTravelOptions } from './time-travel';

export interface AuditDeps {
  readonly store: EventStore;
  readonly readModel: ReadModel;
  readonly limits: Pick<Limits, 'maxFields' | 'maxFieldKeyLength' | 'maxFieldValueLength' | 'maxRegexLength'> & PromptLimits;
  readonly timeTravel?: TimeTravelOptions;
}

interface ExplainInput {
  readonly request: EvaluateRequest;
  readonly options: ExplainOptions;
}

function parseExplainInput(body: unknown, limits: AuditDeps['limits']): ExplainInput {
  return { request: parseEvaluateRequest(body, limits), options: readExplainOptions(body) };
}

/** The audit functions over one store and the node's live read model. */
export function createAuditService({ store, readModel, limits, timeTravel: options }: AuditDeps) {
  const timeTravel = createTimeTravel(store, options);
  return {
    /** A page of the log, filtered; see event-filter.ts and audit-log.ts. */
    async events(query: EventQueryText) {
      const page = await readEventPage(store, parseEventQuery(query));
      return { ...page, next_cursor: eventCursor(page.next) };
    },

    /** What evaluate answered at `as_of`, optionally with the explanation. */
    async evaluateAsOf(body: unknown) {
      const { request, options } = parseExplainInput(body, limits);
      const asOf = parseAsOf(isPlainObject(body) ? body.as_of : undefined);
      const explain = (body as { explain?: unknown }).explain;
      if (explain !== undefined && typeof explain !== 'boolean') throw badRequest('explain must be a boolean');
      const point = await timeTravel.at(asOf);
      if (explain === true) checkNamedRules(options, point.state.rules);
      const answer = await evaluateAt(point, request, limits);
      const explained = explain === true ? explainRules(point.state.rules, request.fields, answer.matchingRuleIds, options) : undefined;
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
      const request = parseEvaluateRequest(replayBody(record), limits);
      const point = await timeTravel.at(
        asOf === undefined ? recordedPoint(record) : asOf === 'head' ? { kind: 'position', position: (await store.headPosition()) ?? 0n } : parseAsOf(asOf),
      );
      const answer = await evaluateAt(point, request, limits);
      return replayReport(record, answer, point, await fieldsReadInSlices(point.engine, maskedFieldNames(record)));
    },

    explain: (body: unknown) => explainLive(readModel, limits, body),
    /** Evaluate over the live rules with draft rules beside or in place of them, explained; writes nothing (dry-run.ts). */
    dryRun: (body: unknown) => dryRun(readModel.state, readModel.engine, body, limits),
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
function explainLive(readModel: ReadModel, limits: AuditDeps['limits'], body: unknown) {
  const { request, options } = parseExplainInput(body, limits);
  const state = readModel.state;
  checkNamedRules(options, state.rules);
  const explained = explainRules(state.rules, request.fields, readModel.engine.evaluate(request.fields), options);
  return { position: state.position === undefined ? null : toJsonPosition(state.position), ...explained };
}

export type AuditService = ReturnType<typeof createAuditService>;
