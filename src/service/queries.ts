/** Admin reads: listings, single records and rule history. */
import { evolveRules } from '../../projections/rules';
import { eventView } from './event-view';
import { mayHold, type RuleRecord } from '../../projections';
import { badRequest, notFound } from '../base/errors';
import { decodeEvent, streams, type RuleBody } from '../events';
import { parseVersion } from '../prompts/semver';
import { findPrompt, selectVersion } from '../../projections/prompts';
import { readLabel } from '../domain/prompts';
import type { TemplateLimits } from '../prompts/template';
import type { ReadModel } from '../read-model/read-model';
import type { EventStore, Json } from '../store/port';
import {
  apiKeyFilter, compareDecimal, compareText, contextFilter, indexAfter, pageOf, pager, parsePageQuery, promptFilter, ruleSearch, secretFilter,
} from './listing';
import { inSlices, sortInSlices, type SliceOptions } from './read-ahead';
import { SortedIds } from './sorted-ids';
import { apiKeyView, contextAdminView, promptAdminView, ruleView, secretView } from './views';

/** A list route's query parameters, each given once (src/http/admin-request.ts). */
type ListQuery = { readonly [name: string]: string | undefined };

const RULE_MEMBERS: readonly (keyof RuleBody)[] = [
  'name', 'description', 'status', 'group_operator', 'condition_groups', 'entities', 'key', 'splits',
];

/** `templateLimits`: prompt listings show each template's variables, parsed (once) under these; `slices`: the rule walk's (tests). */
export function createQueries(store: EventStore, readModel: ReadModel, templateLimits: TemplateLimits, slices: SliceOptions = {}) {
  const state = readModel.state;
  const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  const idOf = (record: { id: string }) => record.id;

  /** The rule ids sorted, kept between listings with creates and deletes merged in (sorted-ids.ts). */
  const sortedIds = new SortedIds((ids) => sortInSlices(ids, compareText));
  readModel.onApplied((event) => {
    const id = event.data.id;
    if (event.type.startsWith('Rule') && typeof id === 'string') sortedIds.note(id, () => state.rules.has(id));
  });

  return {
    /**
     * A page of the rules by id, filtered (src/service/listing.ts). Ids
     * sorted (once per change of which rules there are), records read only
     * as the page walks them, one not yet decoded since a start from a
     * snapshot tested on its text first (projections/lazy-rules.ts): a page
     * decodes few (bench: million). The walk runs in slices with evaluate
     * answered between them (read-ahead.ts): a filter few rules pass walks
     * them all, ~10 s at 1M rules after a snapshot start.
     */
    async listRules(query: ListQuery = {}) {
      const { keep, mentions, foldedMentions } = ruleSearch(query);
      const paging = parsePageQuery('rules', query);
      const ids = await sortedIds.list(() => state.rules.keys());
      const start = paging.after === undefined ? 0 : indexAfter(ids, paging.after);
      // One item per id, undefined for an id passed over: a generator that skipped ids without yielding ran a
      // filter few rules pass (status=INACTIVE) over 1M ids between two clock reads, holding evaluate 80-150 ms a step.
      const candidates = function* () {
        for (let i = start; i < ids.length; i++) {
          // A rule deleted since the walk began is not listed.
          yield mayHold(state.rules, ids[i]!, mentions, foldedMentions) ? state.rules.get(ids[i]!) : undefined;
        }
      };
      const found = pager('rules', idOf, keep, paging);
      await inSlices(candidates(), (record) => record === undefined || found.take(record), slices);
      const page = found.page();
      return { rules: page.items.map(ruleView), next_cursor: page.next_cursor };
    },
    getRule(id: string) {
      const rule = state.rules.get(id);
      if (rule === undefined) throw notFound('rule', id);
      return ruleView(rule);
    },
    /** The events of the rule's stream with who, when, where, and what changed, paged by revision. */
    async ruleHistory(id: string, query: ListQuery = {}) {
      const paging = parsePageQuery('rule_history', query);
      const events = await store.readStream(streams.rule(id));
      if (events.length === 0) throw notFound('rule', id);
      const fold = new Map<string, RuleRecord>();
      // The diff of each event needs the fold of every earlier one, so the whole stream is folded, then paged.
      const all = events.map((event) => {
          const before = fold.get(id);
          const decoded = decodeEvent(event);
          // A rule stream holds rule events; any other type changes nothing.
          switch (decoded?.type) {
            case 'RuleCreated':
            case 'RuleUpdated':
            case 'RuleDeleted':
              evolveRules(fold, decoded);
          }
          return { ...eventView(event), changes: ruleDiff(before, fold.get(id)) };
      });
      const page = pageOf('rule_history', all, (event) => event.revision, () => true, paging, compareDecimal);
      return { events: page.items, next_cursor: page.next_cursor };
    },

    listContexts(query: ListQuery = {}) {
      const keep = contextFilter(query);
      const page = pageOf('contexts', [...state.contexts.values()].sort(byId), idOf, keep, parsePageQuery('contexts', query));
      return { contexts: page.items.map(contextAdminView), next_cursor: page.next_cursor };
    },
    getContext(id: string) {
      const context = state.contexts.get(id);
      if (context === undefined) throw notFound('context', id);
      return contextAdminView(context);
    },

    listPrompts(query: ListQuery = {}) {
      const keep = promptFilter(query);
      const page = pageOf('prompts', [...state.prompts.values()].sort(byId), idOf, keep, parsePageQuery('prompts', query));
      return {
        prompts: page.items.map((p) => promptAdminView(p, p.versions[p.versions.length - 1]!, templateLimits)),
        next_cursor: page.next_cursor,
      };
    },
    /** A prompt by id or name, at a version, a label, or (neither) the latest. */
    getPrompt(ref: string, version: string | undefined, label?: string) {
      const prompt = findPrompt(state.prompts, ref);
      if (prompt === undefined) throw notFound('prompt', ref);
      if (version !== undefined && parseVersion(version) === undefined) throw badRequest('version must be MAJOR.MINOR.PATCH');
      if (label !== undefined) readLabel(label, 'label');
      if (version !== undefined && label !== undefined) throw badRequest('give version or label, not both');
      const selected = selectVersion(prompt, { version, label });
      if (selected === undefined) {
        throw label === undefined ? notFound(`version ${version} of prompt`, prompt.id) : notFound(`label ${label} of prompt`, prompt.id);
      }
      return promptAdminView(prompt, selected, templateLimits);
    },
    /** The events of the prompt's stream (versions, label moves, changes) with who, when and where, paged by revision. */
    async promptHistory(ref: string, query: ListQuery = {}) {
      const paging = parsePageQuery('prompt_history', query);
      const id = findPrompt(state.prompts, ref)?.id ?? ref;
      const events = await store.readStream(streams.prompt(id));
      if (events.length === 0) throw notFound('prompt', ref);
      const page = pageOf('prompt_history', events.map(eventView), (event) => event.revision, () => true, paging, compareDecimal);
      return { events: page.items, next_cursor: page.next_cursor };
    },

    listSecrets(query: ListQuery = {}) {
      const keep = secretFilter(query);
      const page = pageOf('secrets', [...state.vault.secrets.values()].sort(byId), idOf, keep, parsePageQuery('secrets', query));
      return { secrets: page.items.map(secretView), next_cursor: page.next_cursor };
    },
    listApiKeys(query: ListQuery = {}) {
      const keep = apiKeyFilter(query);
      const page = pageOf('api_keys', [...state.apiKeys.byId.values()].sort(byId), idOf, keep, parsePageQuery('api_keys', query));
      return { api_keys: page.items.map(apiKeyView), next_cursor: page.next_cursor };
    },
  };
}

/** Before/after of each rule member the event changed. */
function ruleDiff(before: RuleRecord | undefined, after: RuleRecord | undefined) {
  const changes: { [member: string]: { before: Json; after: Json } } = {};
  for (const member of RULE_MEMBERS) {
    const was = (before?.[member] ?? null) as Json;
    const now = (after?.[member] ?? null) as Json;
    if (JSON.stringify(was) !== JSON.stringify(now)) changes[member] = { before: was, after: now };
  }
  return changes;
}

export type Queries = ReturnType<typeof createQueries>;
