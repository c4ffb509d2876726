/** Admin reads: listings, single records, rule history and the audit log page. */
import { evolveRules } from '../../projections/rules';
import type { RuleRecord } from '../../projections';
import { badRequest, notFound } from '../errors';
import { streams, type RuleBody, type RuleEvent, type StoredEvent } from '../events';
import { parseVersion } from '../prompts/semver';
import type { ReadModel } from '../read-model';
import { parseJsonPosition, toJsonPosition, type EventStore, type Json, type RecordedEvent } from '../store/port';
import { apiKeyView, contextAdminView, promptAdminView, ruleView, secretView } from './views';

const RULE_MEMBERS: readonly (keyof RuleBody)[] = [
  'name', 'description', 'status', 'group_operator', 'condition_groups', 'entities',
];
export const AUDIT_PAGE = { default: 100, max: 1000 } as const;

export function createQueries(store: EventStore, readModel: ReadModel) {
  const state = readModel.state;
  const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

  return {
    listRules: () => ({ rules: [...state.rules.values()].sort(byId).map(ruleView) }),
    getRule(id: string) {
      const rule = state.rules.get(id);
      if (rule === undefined) throw notFound('rule', id);
      return ruleView(rule);
    },
    /** Every event of the rule's stream with who, when, where, and what changed. */
    async ruleHistory(id: string) {
      const events = await store.readStream(streams.rule(id));
      if (events.length === 0) throw notFound('rule', id);
      const fold = new Map<string, RuleRecord>();
      return {
        events: events.map((event) => {
          const before = fold.get(id);
          evolveRules(fold, event as unknown as StoredEvent<RuleEvent>);
          return { ...eventView(event), changes: ruleDiff(before, fold.get(id)) };
        }),
      };
    },

    listContexts: () => ({ contexts: [...state.contexts.values()].sort(byId).map(contextAdminView) }),
    getContext(id: string) {
      const context = state.contexts.get(id);
      if (context === undefined) throw notFound('context', id);
      return contextAdminView(context);
    },

    listPrompts: () => ({
      prompts: [...state.prompts.values()].sort(byId).map((p) => promptAdminView(p, p.versions[p.versions.length - 1]!)),
    }),
    getPrompt(id: string, version: string | undefined) {
      const prompt = state.prompts.get(id);
      if (prompt === undefined) throw notFound('prompt', id);
      if (version !== undefined && parseVersion(version) === undefined) throw badRequest('version must be MAJOR.MINOR.PATCH');
      const selected = version === undefined ? prompt.versions[prompt.versions.length - 1] : prompt.versions.find((v) => v.version === version);
      if (selected === undefined) throw notFound(`version ${version} of prompt`, id);
      return promptAdminView(prompt, selected);
    },

    listSecrets: () => ({ secrets: [...state.vault.secrets.values()].sort(byId).map(secretView) }),
    listApiKeys: () => ({ api_keys: [...state.apiKeys.byId.values()].sort(byId).map(apiKeyView) }),

    /** A page of the log; secret values appear only sealed, as they are stored. */
    async auditEvents(query: { after?: string; limit?: string }) {
      const after = query.after === undefined ? undefined : parseJsonPosition(query.after);
      if (query.after !== undefined && after === undefined) throw badRequest('after must be a log position (a whole number)');
      const limit = query.limit === undefined ? AUDIT_PAGE.default : Number(query.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_PAGE.max) {
        throw badRequest(`limit must be a whole number from 1 to ${AUDIT_PAGE.max}`);
      }
      const events = await store.readAll({ after, limit });
      const last = events[events.length - 1];
      return {
        events: events.map((e) => ({ stream: e.stream, ...eventView(e) })),
        next: events.length === limit && last !== undefined ? toJsonPosition(last.position) : null,
      };
    },
  };
}

function eventView(event: RecordedEvent) {
  return {
    type: event.type,
    revision: toJsonPosition(event.revision),
    position: toJsonPosition(event.position),
    actor: event.metadata.actor,
    at: event.metadata.at,
    request_id: event.metadata.request_id,
    data: event.data,
    metadata: event.metadata,
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
