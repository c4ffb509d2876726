/**
 * The service's command layer on a real SQLite file, without HTTP (fast
 * enough for histories of thousands of events), and a seeded generator of
 * random histories that records what evaluate answered live along the way.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Test } from 'tap';
import { DEFAULTS } from '../../../src/base/config';
import { evaluate, parseEvaluateRequest } from '../../../src/service/evaluate';
import { AppError } from '../../../src/base/errors';
import { silentLogger } from '../../../src/base/log';
import { createReadModel, type ReadModel } from '../../../src/read-model/read-model';
import { createApiKeyCommands } from '../../../src/service/api-key-commands';
import { createCatalogCommands } from '../../../src/service/catalog-commands';
import { createCommandBus, type Actor } from '../../../src/service/command-bus';
import { createVaultCommands } from '../../../src/service/vault-commands';
import { openSqliteStore } from '../../../src/store/sqlite';
import type { EventStore, Subscription } from '../../../src/store/port';
import { createSealer } from '../../../src/vault/seal';
import { pick, randomFields, randomGroup, seededRandom, type Random } from '../../engine/random-rules';
import { removeDir, tempDir } from '../../support/temp';

export const LIMITS = DEFAULTS.limits;

export interface CommandNode {
  readonly store: EventStore;
  readonly readModel: ReadModel;
  readonly catalog: ReturnType<typeof createCatalogCommands>;
  readonly vault: ReturnType<typeof createVaultCommands>;
  readonly apiKeys: ReturnType<typeof createApiKeyCommands>;
  close(): Promise<void>;
}

export interface SteppingClock {
  now(): Date;
  /** The last time `now` gave: the `at` of the newest event appended. */
  last(): string;
}

/** A clock that moves 1 ms per reading, so every event has its own `at`. */
export function steppingClock(start = Date.parse('2026-01-01T00:00:00.000Z')): SteppingClock {
  let next = start;
  return {
    now: () => new Date(next++),
    last: () => new Date(next - 1).toISOString(),
  };
}

/** Opens `<dir>/events.db` and follows it into a read model, as main.ts does. */
export async function startCommandNode(dir: string, now: () => Date): Promise<CommandNode> {
  const store = openSqliteStore(path.join(dir, 'events.db'));
  const readModel = createReadModel();
  let subscription: Subscription | undefined;
  await new Promise<void>((resolve, reject) => {
    subscription = store.subscribe(undefined, {
      onEvent: (event) => readModel.apply(event),
      onCaughtUp: () => resolve(),
      onError: reject,
    });
  });
  readModel.markCaughtUp();
  const runtime = { now, newId: randomUUID };
  const bus = createCommandBus(store, readModel, runtime);
  const sealer = await createSealer(new Uint8Array(randomBytes(32)));
  const vault = createVaultCommands({ bus, store, readModel, runtime, sealer, logger: silentLogger });
  await vault.verifyOrEnrollMasterKey({ id: 'system', requestId: 'startup' });
  return {
    store,
    readModel,
    catalog: createCatalogCommands({ bus, readModel, runtime, maxRegexLength: 1000, templateLimits: LIMITS }),
    vault,
    apiKeys: createApiKeyCommands({ bus, readModel, runtime }),
    async close() {
      await vault.close();
      await subscription?.close();
      await store.close();
      sealer.dispose();
    },
  };
}

/** A command node on a fresh folder with a stepping clock; closed and removed when `t` ends. */
export async function commandNodeFor(t: Test): Promise<{ readonly node: CommandNode; readonly clock: SteppingClock; readonly dir: string }> {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const clock = steppingClock();
  const node = await startCommandNode(dir, clock.now);
  t.teardown(() => node.close());
  return { node, clock, dir };
}

/** What evaluate answered live at one point of the log. */
export interface LiveAnswer {
  readonly position: string;
  readonly at: string;
  readonly body: Record<string, unknown>;
  readonly answer: unknown;
}

const TEMPLATES = ['Hello {{name}}', 'tier {{tier}}{{#if vip}} VIP{{/if}}', 'plain text', '{{#each items}}{{this}},{{/each}}'];

/** A random evaluate body over the random-rules field set. */
export function randomBody(random: Random): Record<string, unknown> {
  const body: Record<string, unknown> = {
    entity_type: pick(random, ['context', 'prompt', 'evaluation']),
    fields: randomFields(random),
    include_entity_data: random() < 0.7,
  };
  if (random() < 0.5) {
    body.entity_inputs = { variables: { name: 'Ada', tier: 'gold', vip: random() < 0.5, items: ['x', 'y'] }, ...(random() < 0.3 ? { version: '1.0.0' } : {}) };
  }
  return body;
}

/**
 * Runs `steps` random commands (rules, contexts, prompts, secrets, API keys:
 * creates, updates, deletes), recording a live evaluate answer every
 * `sampleEvery` steps. Commands the domain refuses (400/404/409) are part of
 * the fun and skipped.
 */
export async function randomHistory(node: CommandNode, clock: SteppingClock, seed: number, steps: number, sampleEvery: number): Promise<LiveAnswer[]> {
  const random = seededRandom(seed);
  const state = node.readModel.state;
  const actors: Actor[] = ['alice', 'bob', 'cli'].map((id) => ({ id, requestId: 'r' }));
  const ids = <T>(map: ReadonlyMap<string, T>) => [...map.keys()];
  const someId = <T>(map: ReadonlyMap<string, T>) => (map.size === 0 ? 'missing' : pick(random, ids(map)));
  const links = () => {
    const out: { entity_type: string; entity_id: string }[] = [];
    if (state.contexts.size > 0 && random() < 0.6) out.push({ entity_type: 'context', entity_id: someId(state.contexts) });
    if (state.prompts.size > 0 && random() < 0.6) out.push({ entity_type: 'prompt', entity_id: someId(state.prompts) });
    if (random() < 0.3) out.push({ entity_type: 'evaluation', entity_id: `eval-${Math.floor(random() * 5)}` });
    return out;
  };
  const groups = () => Array.from({ length: 1 + Math.floor(random() * 2) }, () => randomGroup(random));
  const samples: LiveAnswer[] = [];
  for (let step = 0; step < steps; step++) {
    const actor = pick(random, actors);
    const roll = random();
    try {
      if (roll < 0.25) {
        await node.catalog.createRule({ name: `r${step}`, group_operator: pick(random, ['AND', 'OR']), condition_groups: groups(), entities: links() }, actor);
      } else if (roll < 0.45) {
        const patch = pick(random, [
          () => ({ condition_groups: groups() }),
          () => ({ status: pick(random, ['ACTIVE', 'INACTIVE']) }),
          () => ({ entities: links(), name: `renamed ${step}` }),
          () => ({ group_operator: pick(random, ['AND', 'OR']) }),
        ])();
        await node.catalog.updateRule(someId(state.rules), patch, undefined, actor);
      } else if (roll < 0.5) {
        await node.catalog.deleteRule(someId(state.rules), actor);
      } else if (roll < 0.6) {
        await node.catalog.createContext({ name: `c${step}`, content: `content ${step}`, tags: ['t'], status: random() < 0.8 ? 'ACTIVE' : 'INACTIVE' }, actor);
      } else if (roll < 0.68) {
        await node.catalog.updateContext(someId(state.contexts), { content: `edited ${step}`, status: pick(random, ['ACTIVE', 'INACTIVE']) }, undefined, actor);
      } else if (roll < 0.7) {
        await node.catalog.deleteContext(someId(state.contexts), actor);
      } else if (roll < 0.77) {
        await node.catalog.createPrompt({ name: `p${step}`, prompt: pick(random, TEMPLATES) }, actor);
      } else if (roll < 0.84) {
        await node.catalog.addPromptVersion(someId(state.prompts), { prompt: pick(random, TEMPLATES) + ` v${step}` }, actor);
      } else if (roll < 0.87) {
        await node.catalog.updatePrompt(someId(state.prompts), { status: pick(random, ['ACTIVE', 'INACTIVE']), tags: [`s${step}`] }, undefined, actor);
      } else if (roll < 0.88) {
        await node.catalog.deletePrompt(someId(state.prompts), actor);
      } else if (roll < 0.92) {
        await node.vault.createSecret({ key: `KEY_${step}`, value: `plaintext-${step}`, tags: ['llm'] }, actor);
      } else if (roll < 0.94) {
        await node.vault.updateSecret(someId(state.vault.secrets), { value: `new-${step}` }, undefined, actor);
      } else if (roll < 0.95) {
        await node.vault.deleteSecret(someId(state.vault.secrets), actor);
      } else if (roll < 0.98) {
        await node.apiKeys.createApiKey({ name: `k${step}`, scopes: ['evaluate'] }, actor);
      } else {
        await node.apiKeys.revokeApiKey(someId(state.apiKeys.byId), actor);
      }
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
    }
    if (step % sampleEvery === sampleEvery - 1 && state.position !== undefined) {
      const body = randomBody(random);
      const request = parseEvaluateRequest(body, LIMITS, 0);
      const answer = JSON.parse(JSON.stringify(evaluate(state, node.readModel.engine, request, LIMITS)));
      samples.push({ position: state.position.toString(), at: clock.last(), body, answer });
    }
  }
  return samples;
}
