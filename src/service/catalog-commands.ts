/**
 * Rule, context and prompt writes: read model -> decide -> append -> view.
 * An update's answer is read inside the command bus's section: once the
 * section ends (before the write is durable), later writes may move the
 * record on.
 */
import {
  decideCreateContext, decideDeleteContext, decideUpdateContext, parseContextCreate, parseContextPatch,
} from '../domain/contexts';
import {
  decideAddPromptVersion, decideCreatePrompt, decideDeletePrompt, decideMoveLabel, decideRemoveLabel, decideUpdatePrompt,
  parseLabelMove, parsePromptCreate, parsePromptPatch, parsePromptVersion, readLabel,
} from '../domain/prompts';
import { rulesWhere } from '../../projections';
import { findPrompt } from '../../projections/prompts';
import {
  decideCreateRule, decideDeleteRule, decideUnlinkEntity, decideUpdateRule, parseRuleCreate, parseRulePatch, type RuleContext,
} from '../domain/rules';
import type { IfMatch } from '../domain/input';
import { streams, type EntityLink } from '../events';
import type { ReadModel } from '../read-model/read-model';
import type { TemplateLimits } from '../prompts/template';
import { appendDecided, type Actor, type CommandBus, type Runtime } from './command-bus';
import { flagKeysOf } from './flag-keys';
import { contextAdminView, promptAdminView, ruleView } from './views';

export interface CatalogDeps {
  readonly bus: CommandBus;
  readonly readModel: ReadModel;
  readonly runtime: Runtime;
  readonly maxRegexLength: number;
  readonly templateLimits: TemplateLimits;
}

export function createCatalogCommands({ bus, readModel, runtime, maxRegexLength, templateLimits }: CatalogDeps) {
  const state = readModel.state;
  const ruleContext: RuleContext = {
    maxRegexLength,
    entityExists: (link: EntityLink) =>
      link.entity_type === 'context' ? state.contexts.has(link.entity_id) : state.prompts.has(link.entity_id),
    promptIdOf: (ref) => findPrompt(state.prompts, ref)?.id,
    // Asked only by a create that names a key: the index is built then (flag-keys.ts), not at start.
    keyHolder: (key) => flagKeysOf(readModel).holderOf(key),
  };
  /**
   * Unlinks a context or prompt about to be deleted from every rule naming it
   * (one RuleUpdated each, decided on the rule as it is now). Not atomic with
   * the delete: interrupted, it leaves rules unlinked and the entity in place,
   * and repeating the delete finishes it.
   */
  async function unlinkFromRules(link: EntityLink, actor: Actor): Promise<void> {
    // A rule linking it holds its id as a JSON string: records still unread since a snapshot are searched as text first.
    const linking = rulesWhere(state.rules, JSON.stringify(link.entity_id), (r) => r.entities.some((l) => l.entity_type === link.entity_type && l.entity_id === link.entity_id));
    for (const { id } of linking) {
      const current = state.rules.get(id);
      await appendDecided(bus, streams.rule(id), current?.revision ?? 'any', decideUnlinkEntity(id, current, link, ruleContext), actor);
    }
  }
  const rule = (id: string) => ruleView(state.rules.get(id)!);
  const context = (id: string) => contextAdminView(state.contexts.get(id)!);
  const prompt = (id: string) => {
    const record = state.prompts.get(id)!;
    return promptAdminView(record, record.versions[record.versions.length - 1]!, templateLimits);
  };
  /** A prompt route's `:id` names a prompt by id or by name; unknown, it stays as given (the decider answers 404). */
  const promptId = (ref: string) => findPrompt(state.prompts, ref)?.id ?? ref;

  return {
    async createRule(body: unknown, actor: Actor) {
      const input = parseRuleCreate(body);
      const id = runtime.newId();
      await bus.withRetry(undefined, () =>
        bus.append(streams.rule(id), 'no_stream', decideCreateRule(id, input, ruleContext), actor));
      return rule(id);
    },
    async updateRule(id: string, body: unknown, ifMatch: IfMatch | undefined, actor: Actor) {
      const patch = parseRulePatch(body);
      return bus.withRetry(ifMatch, async () => {
        const current = state.rules.get(id);
        const events = decideUpdateRule(id, current, patch, ifMatch, ruleContext);
        await appendDecided(bus, streams.rule(id), current!.revision, events, actor);
        return rule(id);
      });
    },
    async deleteRule(id: string, actor: Actor, ifMatch?: IfMatch) {
      await bus.withRetry(ifMatch, () => {
        const current = state.rules.get(id);
        return bus.append(streams.rule(id), current?.revision ?? 'any', decideDeleteRule(id, current, ifMatch), actor);
      });
    },

    async createContext(body: unknown, actor: Actor) {
      const input = parseContextCreate(body);
      const id = runtime.newId();
      await bus.withRetry(undefined, () =>
        bus.append(streams.context(id), 'no_stream', decideCreateContext(id, input), actor));
      return context(id);
    },
    async updateContext(id: string, body: unknown, ifMatch: IfMatch | undefined, actor: Actor) {
      const patch = parseContextPatch(body);
      return bus.withRetry(ifMatch, async () => {
        const current = state.contexts.get(id);
        const events = decideUpdateContext(id, current, patch, ifMatch);
        await appendDecided(bus, streams.context(id), current!.revision, events, actor);
        return context(id);
      });
    },
    async deleteContext(id: string, actor: Actor, ifMatch?: IfMatch) {
      await bus.withRetry(ifMatch, async () => {
        const current = state.contexts.get(id);
        const events = decideDeleteContext(id, current, ifMatch);
        await unlinkFromRules({ entity_type: 'context', entity_id: id }, actor);
        return bus.append(streams.context(id), current!.revision, events, actor);
      });
    },

    async createPrompt(body: unknown, actor: Actor) {
      const input = parsePromptCreate(body, templateLimits);
      const id = runtime.newId();
      await bus.withRetry(undefined, () =>
        bus.append(streams.prompt(id), 'no_stream', decideCreatePrompt(id, input, state.prompts.idsByName.get(input.name)), actor));
      return prompt(id);
    },
    async addPromptVersion(ref: string, body: unknown, actor: Actor, ifMatch?: IfMatch) {
      const id = promptId(ref);
      const input = parsePromptVersion(body, templateLimits);
      return bus.withRetry(ifMatch, async () => {
        const current = state.prompts.get(id);
        const events = decideAddPromptVersion(id, current, input, ifMatch);
        await bus.append(streams.prompt(id), current!.revision, events, actor);
        return prompt(id);
      });
    },
    async updatePrompt(ref: string, body: unknown, ifMatch: IfMatch | undefined, actor: Actor) {
      const id = promptId(ref);
      const patch = parsePromptPatch(body);
      return bus.withRetry(ifMatch, async () => {
        const current = state.prompts.get(id);
        const holder = patch.name === undefined ? undefined : state.prompts.idsByName.get(patch.name);
        const events = decideUpdatePrompt(id, current, patch, ifMatch, holder);
        await appendDecided(bus, streams.prompt(id), current!.revision, events, actor);
        return prompt(id);
      });
    },
    /** Promotes or rolls back: points `production` or a custom label at a version (one PromptLabelMoved). */
    async movePromptLabel(ref: string, labelParam: string, body: unknown, actor: Actor, ifMatch?: IfMatch) {
      const id = promptId(ref);
      const label = readLabel(labelParam, 'label');
      const move = parseLabelMove(body);
      return bus.withRetry(ifMatch, async () => {
        const current = state.prompts.get(id);
        const events = decideMoveLabel(id, current, label, move, ifMatch);
        await appendDecided(bus, streams.prompt(id), current!.revision, events, actor);
        return prompt(id);
      });
    },
    async removePromptLabel(ref: string, labelParam: string, actor: Actor, ifMatch?: IfMatch) {
      const id = promptId(ref);
      const label = readLabel(labelParam, 'label');
      return bus.withRetry(ifMatch, async () => {
        const current = state.prompts.get(id);
        await bus.append(streams.prompt(id), current?.revision ?? 'any', decideRemoveLabel(id, current, label, ifMatch), actor);
        return prompt(id);
      });
    },
    async deletePrompt(ref: string, actor: Actor, ifMatch?: IfMatch) {
      const id = promptId(ref);
      await bus.withRetry(ifMatch, async () => {
        const current = state.prompts.get(id);
        const events = decideDeletePrompt(id, current, ifMatch);
        await unlinkFromRules({ entity_type: 'prompt', entity_id: id }, actor);
        return bus.append(streams.prompt(id), current!.revision, events, actor);
      });
    },
  };
}

export type CatalogCommands = ReturnType<typeof createCatalogCommands>;
