/** Rule, context and prompt writes: read model -> decide -> append -> view. */
import {
  decideCreateContext, decideDeleteContext, decideUpdateContext, parseContextCreate, parseContextPatch,
} from '../domain/contexts';
import {
  decideAddPromptVersion, decideCreatePrompt, decideDeletePrompt, decideUpdatePrompt,
  parsePromptCreate, parsePromptPatch, parsePromptVersion,
} from '../domain/prompts';
import {
  decideCreateRule, decideDeleteRule, decideUpdateRule, parseRuleCreate, parseRulePatch, type RuleContext,
} from '../domain/rules';
import { streams, type EntityLink } from '../events';
import type { ReadModel } from '../read-model';
import type { TemplateLimits } from '../prompts/template';
import type { Actor, CommandBus, Runtime } from './command-bus';
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
  };
  const rule = (id: string) => ruleView(state.rules.get(id)!);
  const context = (id: string) => contextAdminView(state.contexts.get(id)!);
  const prompt = (id: string) => {
    const record = state.prompts.get(id)!;
    return promptAdminView(record, record.versions[record.versions.length - 1]!, templateLimits);
  };

  return {
    async createRule(body: unknown, actor: Actor) {
      const input = parseRuleCreate(body);
      const id = runtime.newId();
      await bus.withRetry(undefined, () =>
        bus.append(streams.rule(id), 'no_stream', decideCreateRule(id, input, ruleContext), actor));
      return rule(id);
    },
    async updateRule(id: string, body: unknown, ifMatch: bigint | undefined, actor: Actor) {
      const patch = parseRulePatch(body);
      await bus.withRetry(ifMatch, () => {
        const current = state.rules.get(id);
        const events = decideUpdateRule(id, current, patch, ifMatch, ruleContext);
        return bus.append(streams.rule(id), current!.revision, events, actor);
      });
      return rule(id);
    },
    async deleteRule(id: string, actor: Actor) {
      await bus.withRetry(undefined, () => {
        const current = state.rules.get(id);
        return bus.append(streams.rule(id), current?.revision ?? 'any', decideDeleteRule(id, current), actor);
      });
    },

    async createContext(body: unknown, actor: Actor) {
      const input = parseContextCreate(body);
      const id = runtime.newId();
      await bus.withRetry(undefined, () =>
        bus.append(streams.context(id), 'no_stream', decideCreateContext(id, input), actor));
      return context(id);
    },
    async updateContext(id: string, body: unknown, ifMatch: bigint | undefined, actor: Actor) {
      const patch = parseContextPatch(body);
      await bus.withRetry(ifMatch, () => {
        const current = state.contexts.get(id);
        const events = decideUpdateContext(id, current, patch, ifMatch);
        return bus.append(streams.context(id), current!.revision, events, actor);
      });
      return context(id);
    },
    async deleteContext(id: string, actor: Actor) {
      await bus.withRetry(undefined, () => {
        const current = state.contexts.get(id);
        return bus.append(streams.context(id), current?.revision ?? 'any', decideDeleteContext(id, current), actor);
      });
    },

    async createPrompt(body: unknown, actor: Actor) {
      const input = parsePromptCreate(body, templateLimits);
      const id = runtime.newId();
      await bus.withRetry(undefined, () =>
        bus.append(streams.prompt(id), 'no_stream', decideCreatePrompt(id, input), actor));
      return prompt(id);
    },
    async addPromptVersion(id: string, body: unknown, actor: Actor) {
      const input = parsePromptVersion(body, templateLimits);
      await bus.withRetry(undefined, () => {
        const current = state.prompts.get(id);
        const events = decideAddPromptVersion(id, current, input);
        return bus.append(streams.prompt(id), current!.revision, events, actor);
      });
      return prompt(id);
    },
    async updatePrompt(id: string, body: unknown, ifMatch: bigint | undefined, actor: Actor) {
      const patch = parsePromptPatch(body);
      await bus.withRetry(ifMatch, () => {
        const current = state.prompts.get(id);
        const events = decideUpdatePrompt(id, current, patch, ifMatch);
        return bus.append(streams.prompt(id), current!.revision, events, actor);
      });
      return prompt(id);
    },
    async deletePrompt(id: string, actor: Actor) {
      await bus.withRetry(undefined, () => {
        const current = state.prompts.get(id);
        return bus.append(streams.prompt(id), current?.revision ?? 'any', decideDeletePrompt(id, current), actor);
      });
    },
  };
}

export type CatalogCommands = ReturnType<typeof createCatalogCommands>;
