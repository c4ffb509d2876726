/**
 * Dry-run evaluate (POST /api/rule-engine/dry-run): an evaluate request
 * answered over the live rules with draft rules added or put in place of
 * live ones, each rule of the answer explained. Nothing is written: the
 * drafts live for the request only, over the live state, which is not
 * changed (the rule map is copied).
 *
 * - A draft is a rule create body (validated exactly as one: the same 400s,
 *   prefixed with `rules[<index>]`), plus an optional `id`: a live rule's id
 *   puts the draft in that rule's place; without it the draft is new and
 *   answers as `draft-<index>`.
 * - Matching: the live engine's answer without the replaced rules, plus the
 *   drafts that match, checked with the compiled engine's own predicates
 *   (rule-check.ts), so a draft matches exactly as it will once saved.
 * - Explain: the matching rules and every draft, as explain.ts explains them,
 *   each marked `draft` (a draft has no revision or position yet: null), and
 *   with `decisive` on groups and conditions: the ones whose result decided
 *   the verdict (see `markDecisive`).
 */
import type { CatalogState, RuleRecord } from '../../projections';
import { findPrompt } from '../../projections/prompts';
import { decideCreateRule, parseRuleCreate, type RuleContext } from '../domain/rules';
import { isPlainObject } from '../domain/input';
import { AppError, badRequest } from '../base/errors';
import type { EntityLink, RuleBody, RuleEvent } from '../events';
import type { Engine, Fields } from '../engine';
import { evaluate, parseEvaluateRequest, type EvaluateRequest } from '../service/evaluate';
import { toJsonPosition } from '../store/port';
import { explainRules, type GroupExplanation, type RuleExplanation } from './explain';
import { checkedRule, readInputs, ruleMatches } from './rule-check';
import type { AuditDeps } from './service';

/** Drafts one request may carry (the console sends the rule being edited, a few at most). */
export const MAX_DRAFTS = 100;

interface Draft {
  readonly index: number;
  readonly record: RuleRecord;
  /** True when it takes a live rule's place. */
  readonly replaces: boolean;
}

/** Reads `rules`: each draft validated as a rule create body against the live catalog; 400 naming `rules[i]` and the member. */
export function readDrafts(value: unknown, state: CatalogState, maxRegexLength: number): Draft[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw badRequest('rules must be an array of draft rules (rule create bodies, each with an optional id)');
  if (value.length > MAX_DRAFTS) throw badRequest(`rules has ${value.length} drafts; the limit is ${MAX_DRAFTS}`);
  const context: RuleContext = {
    maxRegexLength,
    entityExists: (link: EntityLink) => (link.entity_type === 'context' ? state.contexts.has(link.entity_id) : state.prompts.has(link.entity_id)),
    promptIdOf: (ref) => findPrompt(state.prompts, ref)?.id,
  };
  const seen = new Map<string, number>();
  return value.map((item, index) => {
    const path = `rules[${index}]`;
    if (!isPlainObject(item)) throw badRequest(`${path} must be a JSON object (a rule create body)`);
    const { id, ...body } = item;
    if (id !== undefined && (typeof id !== 'string' || !state.rules.has(id))) {
      throw badRequest(`${path}.id names no rule: give a live rule's id to replace it, or no id for a new rule`);
    }
    const ruleId = id ?? `draft-${index}`;
    const earlier = seen.get(ruleId);
    if (earlier !== undefined) throw badRequest(`${path}.id repeats rules[${earlier}].id: one draft per rule`);
    seen.set(ruleId, index);
    const rule = withPath(path, () => {
      // The decided rule, not the body: its prompt links given by name are ids there, as a write would store them.
      const [created] = decideCreateRule(ruleId, parseRuleCreate(body), context);
      const { id: _id, ...decided } = (created as Extract<RuleEvent, { type: 'RuleCreated' }>).data;
      return decided;
    });
    // A draft in a live rule's place buckets as that rule does unless it says otherwise: its key is the rule's.
    const liveKey = id === undefined ? undefined : state.rules.get(id)?.key;
    const keyed = rule.key === undefined && liveKey !== undefined ? { ...rule, key: liveKey } : rule;
    return { index, record: draftRecord(ruleId, keyed), replaces: id !== undefined };
  });
}

/** Runs a reader, naming the draft in its 400: `rules[1]: condition_groups[0]...`, `rules[1] has an unknown member ...`. */
function withPath<T>(path: string, read: () => T): T {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'bad_request') throw error;
    throw badRequest(error.message.startsWith('body ') ? `${path} ${error.message.slice('body '.length)}` : `${path}.${error.message}`);
  }
}

function draftRecord(id: string, body: RuleBody): RuleRecord {
  return { id, ...body, created_by: 'draft', created_at: '', updated_at: '', revision: 0n, position: 0n };
}

/** The answer of POST /api/rule-engine/dry-run; see the header. `atMs`: the server's time now, what a draft's split schedule is read at. */
export function dryRun(state: CatalogState, live: Pick<Engine, 'evaluate'>, body: unknown, limits: AuditDeps['limits'], atMs: number) {
  const request: EvaluateRequest = parseEvaluateRequest(body, limits, atMs);
  const drafts = readDrafts(isPlainObject(body) ? body.rules : undefined, state, limits.maxRegexLength);
  const byId = new Map(drafts.map((draft) => [draft.record.id, draft]));
  // The drafts laid over the live rules, nothing copied: a copy of 1M rules held the node ~0.4 s (bench: audit-stall).
  const rules = { get: (id: string) => byId.get(id)?.record ?? state.rules.get(id) };
  const engine = { evaluate: (fields: Fields) => overlayMatches(live, drafts, fields) };
  const answer = evaluate({ ...state, rules }, engine, request, limits);
  const explained = explainRules(rules, request.fields, request.atMs, answer.matchingRuleIds, { field: undefined, ruleIds: [...byId.keys()] });
  return {
    ...answer,
    position: state.position === undefined ? null : toJsonPosition(state.position),
    drafts: drafts.map((draft) => ({ index: draft.index, rule_id: draft.record.id, replaces: draft.replaces })),
    explain: explained.rules.map((rule) => markDecisive(rule, byId.has(rule.rule_id))),
    explain_omitted_rule_ids: explained.omitted_rule_ids,
  };
}

/** The live engine's matches minus the replaced rules, plus the matching drafts; sorted, as evaluate answers. */
function overlayMatches(live: Pick<Engine, 'evaluate'>, drafts: readonly Draft[], fields: Fields): string[] {
  const replaced = new Set(drafts.filter((d) => d.replaces).map((d) => d.record.id));
  const ids = live.evaluate(fields).filter((id) => !replaced.has(id));
  const inputs = readInputs(fields);
  for (const draft of drafts) if (ruleMatches(checkedRule(draft.record), inputs)) ids.push(draft.record.id);
  return ids.sort();
}

/**
 * Marks what decided the verdict of the conditions (status aside): with
 * group_operator AND, the groups that failed if one did, else all; with OR,
 * the groups that held if one did, else all. Within a decisive group, the
 * conditions whose result is the group's (AND: the failing ones, or all;
 * OR: the holding ones, or all).
 */
function markDecisive(rule: RuleExplanation, draft: boolean) {
  const results = rule.groups.map((g) => g.result);
  const held = results.length > 0 && (rule.group_operator === 'AND' ? results.every(Boolean) : results.some(Boolean));
  const groups = rule.groups.map((group: GroupExplanation) => {
    const decisive = group.result === held;
    return {
      ...group,
      decisive,
      conditions: group.conditions.map((c) => ({ ...c, decisive: decisive && c.result === group.result })),
    };
  });
  return { ...rule, ...(draft ? { revision: null, position: null } : {}), draft, groups };
}
