/**
 * The impact of proposed changes on real decisions (issue 67, docs/auditors.md#impact-of-a-change):
 * the recorded decisions of a window replayed against the catalog the
 * changes would produce, each answer compared with what the live catalog
 * answers the same request now.
 *
 * - The baseline is the live catalog, not the recorded answer: a rule that
 *   changed since a decision was recorded is not the proposal's doing, so
 *   comparing with the record would blame it on the proposal. Both sides
 *   evaluate the same replayed request (decision-replay.ts replayBody: the
 *   masked values left out) at the record's own time (a split's schedule is
 *   read at it), without entity data: rule ids, entities and variants are
 *   compared, never rendered prompts (ADR 0065).
 * - The proposed catalog is an overlay over the live one (proposed-state.ts),
 *   nothing copied; only the rules the changes touch are checked one by one
 *   besides the live engine's answer.
 * - A record is unreproducible when it masked a field that a rule the
 *   changes could move reads (a condition, or a split's bucket_by): the rule
 *   was judged without the value, so any difference there is a guess. Such
 *   records are counted and listed, never compared. A stand-in (no request
 *   kept) is counted as incomplete.
 * - Reading stops at `maxDecisions` records (RULEVAULT_IMPACT_MAX_DECISIONS),
 *   newest first, and the report says so (`truncated`).
 *
 * Work is done in slices with the event loop free between them, so a node
 * answering an impact report goes on answering evaluate.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CatalogState, RuleRecord } from '../../projections';
import { rulesLinking } from '../../projections';
import { AppError } from '../base/errors';
import type { Engine } from '../engine';
import { evaluate, parseEvaluateRequest, type AnsweredLink, type EvaluateRequest, type EvaluateResponse, type EvaluationReads } from '../service/evaluate';
import { sliceClock } from '../service/read-ahead';
import { DECISIONS_PREFIX, type DecisionRecord, type StoredDecision } from './decision-log';
import { maskedFieldNames, replayBody } from './decision-replay';
import { explainRules, type RuleExplanation } from './explain';
import { sinkFiles } from './ndjson-writer';
import { proposedState, readChanges, type NotReplayed, type ProposedChange, type ProposedState } from './proposed-state';
import type { AuditDeps } from './service';

/** The default window: the last 7 days. */
export const IMPACT_WINDOW_MS = 7 * 24 * 3600 * 1000;
/** The default bound on records replayed (RULEVAULT_IMPACT_MAX_DECISIONS). */
export const IMPACT_MAX_DECISIONS = 10_000;
/** Changed decisions explained, at most, by default. */
export const IMPACT_EXPLAIN_SAMPLE = 5;
/** Bytes of explanations per sampled decision (explain.ts budget). */
const EXPLAIN_BYTES_PER_DECISION = 64 * 1024;

export interface ImpactWindow {
  /** ISO 8601, inclusive both ends. */
  readonly from: string;
  readonly to: string;
}

/** The window ending at `nowMs` and `ms` long (default 7 days). */
export function impactWindow(nowMs: number, ms = IMPACT_WINDOW_MS): ImpactWindow {
  return { from: new Date(nowMs - ms).toISOString(), to: new Date(nowMs).toISOString() };
}

export interface ImpactInput {
  /** The live catalog and its engine: the baseline, and what the proposal is laid over. */
  readonly state: CatalogState;
  readonly engine: Pick<Engine, 'evaluate'>;
  /** ADR 0062 changes, as a request carries them (read and checked here: 400 naming `changes[i]`), or already read. */
  readonly proposed: unknown;
  /** Recorded decisions, newest first (decisionsWithin); those outside `window` are skipped. */
  readonly decisions: Iterable<StoredDecision>;
  readonly window: ImpactWindow;
  readonly limits: AuditDeps['limits'];
  /** Records read at most (default IMPACT_MAX_DECISIONS). */
  readonly maxDecisions?: number;
  /** Changed decisions explained, at most (default IMPACT_EXPLAIN_SAMPLE). */
  readonly explainSample?: number;
  /** The time proposed records are written at (ms; default now). */
  readonly nowMs?: number;
}

/** One decision whose answer the changes would change. */
export interface ChangedDecision {
  readonly decision_id: string;
  readonly at: string;
  readonly rule_ids: { readonly added: string[]; readonly removed: string[] };
  readonly entities: { readonly added: AnsweredLink[]; readonly removed: AnsweredLink[] };
  /** Per rule, the split variant it answers with now and as proposed (null: none), where they differ. */
  readonly variants: { readonly rule_id: string; readonly before: string | null; readonly after: string | null }[];
}

export interface ImpactReport {
  readonly window: ImpactWindow;
  readonly max_decisions: number;
  /** True when reading stopped at max_decisions: older records of the window were not replayed. */
  readonly truncated: boolean;
  /** Records of the window read. */
  readonly read: number;
  /** Records compared (read minus unreproducible and incomplete). */
  readonly replayed: number;
  /** Of those, answers the changes would change. */
  readonly changed: number;
  readonly unchanged: number;
  /** Records that masked a field a rule the changes move reads: not compared. */
  readonly unreproducible: { readonly count: number; readonly decisions: { readonly decision_id: string; readonly masked_fields: string[] }[] };
  /** Records that cannot be replayed at all: stand-ins, or a request the node's limits refuse now. */
  readonly incomplete: { readonly count: number; readonly decisions: { readonly decision_id: string; readonly why: string }[] };
  readonly changes: ChangedDecision[];
  /** For the first changed decisions: the rules that moved, explained against the proposed catalog. */
  readonly explain: { readonly decision_id: string; readonly rules: RuleExplanation[]; readonly omitted_rule_ids: string[] }[];
  /** Changes accepted but not replayed (label moves, versions, protection), and why. */
  readonly not_replayed: readonly NotReplayed[];
  /** The rules the changes touch: created, updated, deleted or unlinked. */
  readonly touched_rule_ids: string[];
}

/** The impact report of `proposed` over the live catalog; see the header. */
export async function impactOf(input: ImpactInput): Promise<ImpactReport> {
  const { state, engine, window, limits } = input;
  const max = input.maxDecisions ?? IMPACT_MAX_DECISIONS;
  const sample = input.explainSample ?? IMPACT_EXPLAIN_SAMPLE;
  const changes: readonly ProposedChange[] = readChanges(input.proposed);
  const proposal = proposedState(state, engine, changes, {
    maxRegexLength: limits.maxRegexLength, templateLimits: limits, at: new Date(input.nowMs ?? Date.now()).toISOString(),
  });
  const moved = movedFields(state, proposal);
  const report = {
    read: 0, replayed: 0, changed: 0, truncated: false,
    unreproducible: [] as ImpactReport['unreproducible']['decisions'],
    incomplete: [] as ImpactReport['incomplete']['decisions'],
    changes: [] as ChangedDecision[],
    explain: [] as ImpactReport['explain'],
  };
  const clock = sliceClock();
  for (const stored of input.decisions) {
    if (stored.at < window.from || stored.at > window.to) continue;
    if (report.read === max) {
      report.truncated = true;
      break;
    }
    report.read += 1;
    if (clock.due()) await clock.turn();
    if ('incomplete' in stored) {
      report.incomplete.push({ decision_id: stored.decision_id, why: stored.incomplete });
      continue;
    }
    const request = replayedRequest(stored);
    if (typeof request === 'string') {
      report.incomplete.push({ decision_id: stored.decision_id, why: request });
      continue;
    }
    const masked = maskedFieldNames(stored).filter((name) => moved.has(name));
    if (masked.length > 0) {
      report.unreproducible.push({ decision_id: stored.decision_id, masked_fields: masked });
      continue;
    }
    report.replayed += 1;
    const before = evaluate(state, engine, request, limits);
    const proposedIds = proposal.engine.evaluate(request.fields);
    const after = evaluate(proposal.reads, { evaluate: () => proposedIds }, request, limits);
    const change = compare(stored, before, after);
    if (change === undefined) continue;
    report.changed += 1;
    report.changes.push(change);
    if (report.explain.length < sample) report.explain.push({ decision_id: stored.decision_id, ...explainChange(proposal.reads, request, change) });
  }
  return {
    window,
    max_decisions: max,
    truncated: report.truncated,
    read: report.read,
    replayed: report.replayed,
    changed: report.changed,
    unchanged: report.replayed - report.changed,
    unreproducible: { count: report.unreproducible.length, decisions: report.unreproducible },
    incomplete: { count: report.incomplete.length, decisions: report.incomplete },
    changes: report.changes,
    explain: report.explain,
    not_replayed: proposal.notReplayed,
    touched_rule_ids: [...proposal.touchedRules].sort(),
  };
}

/** The record's request as a replay reads it, without entity data; a string saying why when it cannot be read now. */
function replayedRequest(record: DecisionRecord): EvaluateRequest | string {
  try {
    const body = { ...replayBody(record), include_entity_data: false };
    return parseEvaluateRequest(body, LIMITLESS, Date.parse(record.at));
  } catch (error) {
    if (error instanceof AppError) return `its request cannot be read: ${error.message}`;
    throw error;
  }
}

/** A recorded request was read within the limits of its day: a replay does not refuse it for today's. */
const LIMITLESS = { maxFields: Infinity, maxFieldKeyLength: Infinity, maxFieldValueLength: Infinity };

/**
 * The fields a rule the changes could move reads: the touched rules (live and proposed), and the rules linking a
 * context or prompt whose liveness the changes flip (its links appear or drop).
 */
function movedFields(state: CatalogState, proposal: ProposedState): Set<string> {
  const rules: RuleRecord[] = [];
  for (const { live, proposed } of proposal.ruleVersions.values()) {
    if (live !== undefined) rules.push(live);
    if (proposed !== undefined) rules.push(proposed);
  }
  for (const key of proposal.touchedEntities) {
    const [type, id] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)] as ['context' | 'prompt', string];
    if (isLive(state, type, id) === isLive(proposal.reads, type, id)) continue;
    rules.push(...rulesLinking(state.rules, { entity_type: type, entity_id: id }));
  }
  const fields = new Set<string>();
  for (const rule of rules) {
    for (const group of rule.condition_groups) for (const condition of group.conditions) fields.add(condition.field);
    for (const split of rule.splits ?? []) fields.add(split.bucket_by);
  }
  return fields;
}

function isLive(reads: EvaluationReads, type: 'context' | 'prompt', id: string): boolean {
  const record = type === 'context' ? reads.contexts.get(id) : reads.prompts.get(id);
  return record !== undefined && record.status === 'ACTIVE';
}

const entityKey = (e: AnsweredLink) => `${e.rule_id} ${e.entity_type}:${e.entity_id}`;

/** What differs between the live and the proposed answer; undefined when nothing does. */
function compare(record: DecisionRecord, before: EvaluateResponse, after: EvaluateResponse): ChangedDecision | undefined {
  const rule_ids = setDifference(before.matchingRuleIds, after.matchingRuleIds, (id) => id);
  const entities = setDifference(before.entities, after.entities, entityKey);
  const variants = variantChanges(before.entities, after.entities);
  const same = rule_ids.added.length + rule_ids.removed.length + entities.added.length + entities.removed.length + variants.length === 0;
  return same ? undefined : { decision_id: record.decision_id, at: record.at, rule_ids, entities, variants };
}

function setDifference<T>(before: readonly T[], after: readonly T[], key: (item: T) => string): { added: T[]; removed: T[] } {
  const had = new Set(before.map(key));
  const has = new Set(after.map(key));
  return { added: after.filter((item) => !had.has(key(item))), removed: before.filter((item) => !has.has(key(item))) };
}

/** Per rule, the variant names of its answered links, before and after, where they differ. */
function variantChanges(before: readonly AnsweredLink[], after: readonly AnsweredLink[]): ChangedDecision['variants'] {
  const variants = (links: readonly AnsweredLink[]) => {
    const byRule = new Map<string, string>();
    for (const link of links) if (link.variant !== null) byRule.set(link.rule_id, link.variant);
    return byRule;
  };
  const was = variants(before);
  const is = variants(after);
  const rules = [...new Set([...was.keys(), ...is.keys()])].sort();
  return rules.filter((id) => was.get(id) !== is.get(id)).map((id) => ({ rule_id: id, before: was.get(id) ?? null, after: is.get(id) ?? null }));
}

/** The rules that moved in a changed decision, explained against the proposed catalog. */
function explainChange(reads: EvaluationReads, request: EvaluateRequest, change: ChangedDecision) {
  const ids = [
    ...change.rule_ids.added, ...change.rule_ids.removed,
    ...change.entities.added.map((e) => e.rule_id), ...change.entities.removed.map((e) => e.rule_id),
    ...change.variants.map((v) => v.rule_id),
  ];
  // Only the moved rules: the other matching rules answered as they do now.
  const moved = [...new Set(ids)];
  const explained = explainRules(reads.rules, request.fields, request.atMs, [], { field: undefined, ruleIds: moved }, EXPLAIN_BYTES_PER_DECISION);
  return explained;
}

/**
 * The decision records of `window` in the sink folder `dir`, newest file first and each file's lines last first, so a
 * bound keeps the newest. A line that is not JSON (a write torn by a crash) is skipped. Files are read whole, one at
 * a time (at most RULEVAULT_DECISION_LOG_MAX_FILE_BYTES each).
 */
export function* decisionsWithin(dir: string, window: ImpactWindow): Generator<StoredDecision> {
  const from = Date.parse(window.from);
  for (const name of sinkFiles(dir, DECISIONS_PREFIX).reverse()) {
    let text: string;
    try {
      text = readFileSync(path.join(dir, name), 'utf8');
    } catch {
      continue; // deleted by retention since it was listed
    }
    const lines = text.split('\n');
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = lines[i]!;
      if (line === '') continue;
      let record: StoredDecision;
      try {
        record = JSON.parse(line) as StoredDecision;
      } catch {
        continue;
      }
      if (record.at >= window.from && record.at <= window.to) yield record;
    }
    // A file is named by its first decision id, a UUID version 7: its first 48 bits are the time it began.
    const began = firstTime(name);
    if (began !== undefined && began < from) return;
  }
}

function firstTime(name: string): number | undefined {
  const hex = name.slice(DECISIONS_PREFIX.length + 1).replace(/-/g, '').slice(0, 12);
  return /^[0-9a-f]{12}$/.test(hex) ? parseInt(hex, 16) : undefined;
}
