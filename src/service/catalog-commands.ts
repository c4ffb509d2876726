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
import { rulesLinking } from '../../projections';
import { findPrompt } from '../../projections/prompts';
import {
  decideCreateRule, decideDeleteRule, decideUnlinkEntity, decideUpdateRule, parseRuleCreate, parseRulePatch, type RuleContext,
} from '../domain/rules';
import type { IfMatch } from '../domain/input';
import { decideDirectWrite } from '../domain/protection';
import { PROTECTIONS_STREAM, streams, type DomainEvent, type EntityLink, type ResourceRef } from '../events';
import type { ExpectedRevision } from '../store/port';
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
  /**
   * Appends a direct write's events unless a resource it changes is protected
   * (409 protected); a break-glass write appends its BreakGlassUsed events
   * with it, in one atomic write where the store has one (first elsewhere).
   */
  async function guarded(stream: string, expected: ExpectedRevision, events: readonly DomainEvent[], actor: Actor, refs: readonly ResourceRef[], operation: string): Promise<void> {
    if (events.length === 0) return;
    const glass = decideDirectWrite(state.changeControl, refs, actor.breakGlass, operation);
    if (glass.length === 0) await bus.append(stream, expected, events, actor);
    else await bus.appendBatch([{ stream: PROTECTIONS_STREAM, expected: 'any', events: glass }, { stream, expected, events }], actor);
  }
  const ruleRef = (id: string): ResourceRef => ({ type: 'rule', id });
  const contextRef = (id: string): ResourceRef => ({ type: 'context', id });
  /** A prompt and, for a write that touches them all (a delete), every label it has. */
  const promptRefs = (id: string, labels: readonly string[] = []): ResourceRef[] =>
    [{ type: 'prompt', id }, ...labels.map((label): ResourceRef => ({ type: 'prompt-label', id, label }))];
  /** Rules that link `link`: a delete of it changes each of them. */
  const linkingRules = (link: EntityLink) => rulesLinking(state.rules, link);
  /** A delete that unlinks rules checks them all before anything is written; break-glass records its uses first. */
  async function guardDelete(refs: readonly ResourceRef[], link: EntityLink, actor: Actor, operation: string): Promise<void> {
    const all = [...refs, ...linkingRules(link).map(({ id }) => ruleRef(id))];
    const glass = decideDirectWrite(state.changeControl, all, actor.breakGlass, operation);
    if (glass.length > 0) await bus.append(PROTECTIONS_STREAM, 'any', glass, actor);
  }
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
    for (const { id } of linkingRules(link)) {
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
        await guarded(streams.rule(id), current!.revision, events, actor, [ruleRef(id)], 'updateRule');
        return rule(id);
      });
    },
    async deleteRule(id: string, actor: Actor, ifMatch?: IfMatch) {
      await bus.withRetry(ifMatch, () => {
        const current = state.rules.get(id);
        return guarded(streams.rule(id), current?.revision ?? 'any', decideDeleteRule(id, current, ifMatch), actor, [ruleRef(id)], 'deleteRule');
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
        await guarded(streams.context(id), current!.revision, events, actor, [contextRef(id)], 'updateContext');
        return context(id);
      });
    },
    async deleteContext(id: string, actor: Actor, ifMatch?: IfMatch) {
      await bus.withRetry(ifMatch, async () => {
        const current = state.contexts.get(id);
        const events = decideDeleteContext(id, current, ifMatch);
        const link: EntityLink = { entity_type: 'context', entity_id: id };
        await guardDelete([contextRef(id)], link, actor, 'deleteContext');
        await unlinkFromRules(link, actor);
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
        await guarded(streams.prompt(id), current!.revision, events, actor, promptRefs(id), 'addPromptVersion');
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
        await guarded(streams.prompt(id), current!.revision, events, actor, promptRefs(id), 'updatePrompt');
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
        await guarded(streams.prompt(id), current!.revision, events, actor, [{ type: 'prompt-label', id, label }], 'movePromptLabel');
        return prompt(id);
      });
    },
    async removePromptLabel(ref: string, labelParam: string, actor: Actor, ifMatch?: IfMatch) {
      const id = promptId(ref);
      const label = readLabel(labelParam, 'label');
      return bus.withRetry(ifMatch, async () => {
        const current = state.prompts.get(id);
        const events = decideRemoveLabel(id, current, label, ifMatch);
        await guarded(streams.prompt(id), current?.revision ?? 'any', events, actor, [{ type: 'prompt-label', id, label }], 'removePromptLabel');
        return prompt(id);
      });
    },
    async deletePrompt(ref: string, actor: Actor, ifMatch?: IfMatch) {
      const id = promptId(ref);
      await bus.withRetry(ifMatch, async () => {
        const current = state.prompts.get(id);
        const events = decideDeletePrompt(id, current, ifMatch);
        const link: EntityLink = { entity_type: 'prompt', entity_id: id };
        await guardDelete(promptRefs(id, Object.keys(current!.labels)), link, actor, 'deletePrompt');
        await unlinkFromRules(link, actor);
        return bus.append(streams.prompt(id), current!.revision, events, actor);
      });
    },
  };
}

export type CatalogCommands = ReturnType<typeof createCatalogCommands>;
