/**
 * Differential (issue 66): RuleVaultProvider under the official
 * @openfeature/server-sdk gives the details an OFREP answer of the same node
 * gives for the same flag and context, on both stores. Seeded rule sets with
 * keys (boolean flags, splits, links of two types, inactive rules), seeded
 * changes between rounds, and seeded contexts (nested members, the bucketing
 * field present or not, arrays, unknown flags, flags asked for as another
 * type). The OFREP side is the raw HTTP answer read as OpenFeature reads it
 * (OFREP ADR 0006: no value is the caller's default), because the published
 * OFREP provider (0.1.3) predates that rule.
 */
import { OpenFeature, type Client as FeatureClient, type EvaluationDetails, type JsonValue } from '@openfeature/server-sdk';
import t from 'tap';
import { RuleVaultProvider } from '../../src/client/openfeature';
import { checkConditionGroups } from '../../src/engine';
import { pick, randomFields, randomRule, seededRandom, type Random } from '../engine/random-rules';
import type { Client } from '../support/http';
import { forCells } from '../support/matrix';
import { perSeed, replayHint, testSeeds } from '../support/seeds';
import { withNode } from '../support/with-node';

type Kind = 'boolean' | 'string' | 'object';
const DEFAULTS: Record<Kind, boolean | string | JsonValue> = { boolean: false, string: 'code-default', object: { code: 'default' } };

/** The members both sides are compared on. */
interface Details {
  value: unknown;
  variant: string | undefined;
  reason: string | undefined;
  errorCode: string | undefined;
  flagMetadata: Record<string, unknown>;
}

function fromSdk(details: EvaluationDetails<JsonValue>): Details {
  return { value: details.value, variant: details.variant, reason: details.reason, errorCode: details.errorCode, flagMetadata: { ...details.flagMetadata } };
}

/** An OFREP answer read as an OpenFeature SDK reads one: a value of another type than the default's is TYPE_MISMATCH. */
function fromOfrep(status: number, body: Record<string, unknown>, fallback: unknown): Details {
  const error = (errorCode: string): Details => ({ value: fallback, variant: undefined, reason: 'ERROR', errorCode, flagMetadata: {} });
  if (status !== 200) return error(String(body.errorCode));
  const metadata = (body.metadata ?? {}) as Record<string, unknown>;
  if (!('value' in body)) return { value: fallback, variant: undefined, reason: body.reason as string, errorCode: undefined, flagMetadata: metadata };
  if (typeof body.value !== typeof fallback) return error('TYPE_MISMATCH');
  return { value: body.value, variant: body.variant as string | undefined, reason: body.reason as string, errorCode: undefined, flagMetadata: metadata };
}

async function ask(feature: FeatureClient, kind: Kind, key: string, context: Record<string, unknown>): Promise<EvaluationDetails<JsonValue>> {
  const ctx = context as Parameters<FeatureClient['getBooleanDetails']>[2];
  if (kind === 'boolean') return feature.getBooleanDetails(key, DEFAULTS.boolean as boolean, ctx);
  if (kind === 'string') return feature.getStringDetails(key, DEFAULTS.string as string, ctx);
  return feature.getObjectDetails(key, DEFAULTS.object as JsonValue, ctx);
}

interface Flag {
  readonly key: string;
  readonly kind: Kind;
}

forCells(t, 'openfeature-differential', (t, cell) => {
  const live = withNode(t, { cell });
  let domain = 0;

  t.test('the provider answers every flag and context as OFREP does', async (t) => {
    const admin = live.admin;
    const contexts: string[] = [];
    for (let i = 0; i < 3; i++) contexts.push((await admin.post('/api/contexts', { name: `diff-${i}`, content: `context ${i}` })).json.id);
    const prompt = (await admin.post('/api/prompts', { name: 'diff-prompt', prompt: 'Hello {{name}}' })).json;
    t.equal(typeof prompt.id, 'string', 'a prompt to link');
    await admin.post(`/api/prompts/${prompt.id}/versions`, { prompt: 'Hi {{name}}!', version: '1.1.0' });
    const key = (await admin.post('/api/api-keys', { name: 'diff', scopes: ['evaluate'] })).json.key as string;
    const ofrep: Client = live.clientFor(key);
    const provider = new RuleVaultProvider({ url: live.url, apiKey: key, reconnectMs: 20 });
    const name = `differential-${cell.store}-${++domain}`;
    t.teardown(() => OpenFeature.clearProviders());
    await OpenFeature.setProviderAndWait(name, provider);
    const feature = OpenFeature.getClient(name);

    let compared = 0;
    let matched = 0;
    const seen = new Map<string, number>();
    for (const seed of testSeeds()) {
      const random = seededRandom(seed);
      const flags: Flag[] = [];
      const ruleIds: string[] = [];
      let position = '';
      for (let i = 0; i < perSeed(15); i++) {
        const body = ruleBody(random, `s${seed}-r${i}`, contexts, prompt.id);
        const created = await admin.post('/api/rule-engine/rules', body);
        if (created.status !== 201) throw new Error(`rule ${body.key}: ${created.text}`);
        ruleIds.push(created.json.id);
        position = created.headers.get('rulevault-position')!;
        flags.push({ key: body.key, kind: body.splits === undefined ? 'boolean' : 'string' });
        const types = new Set(body.entities.map((e) => e.entity_type));
        for (const type of types) flags.push({ key: `${body.key}:${type}`, kind: 'object' });
      }
      flags.push({ key: `nope-${seed}`, kind: 'boolean' }, { key: `s${seed}-r0:evaluation`, kind: 'object' });
      for (let round = 0; round < 3; round++) {
        if (round > 0) position = await change(admin, random, ruleIds, contexts);
        await provider.waitFor(position);
        for (let k = 0; k < perSeed(360); k++) {
          const flag = pick(random, flags);
          const kind: Kind = random() < 0.2 ? pick(random, ['boolean', 'string', 'object'] as const) : flag.kind;
          const context = randomContext(random);
          const answer = await ofrep.post(`/ofrep/v1/evaluate/flags/${encodeURIComponent(flag.key)}`, { context });
          const expected = fromOfrep(answer.status, answer.json, DEFAULTS[kind]);
          const got = fromSdk(await ask(feature, kind, flag.key, context));
          compared++;
          const label = expected.errorCode ?? expected.reason ?? '?';
          seen.set(label, (seen.get(label) ?? 0) + 1);
          if (JSON.stringify(got) === JSON.stringify(expected)) matched++;
          else t.same(got, expected, `${replayHint(seed)}, round ${round}: ${kind} ${flag.key} ${JSON.stringify(context)}`);
        }
      }
    }
    t.equal(matched, compared, `all ${compared} details identical`);
    // The scenario reaches every outcome worth comparing.
    for (const outcome of ['TARGETING_MATCH', 'SPLIT', 'DEFAULT', 'DISABLED', 'FLAG_NOT_FOUND', 'TYPE_MISMATCH', 'TARGETING_KEY_MISSING', 'INVALID_CONTEXT']) {
      t.ok((seen.get(outcome) ?? 0) > 0, `${outcome}: ${seen.get(outcome) ?? 0} of ${compared}`);
    }
  });
});

interface RuleBody {
  name: string;
  key: string;
  status: 'ACTIVE' | 'INACTIVE';
  group_operator: string;
  condition_groups: unknown;
  entities: { entity_type: 'context' | 'prompt'; entity_id: string }[];
  splits?: unknown[];
}

/** A keyed rule: random conditions, contexts and maybe the prompt linked, a split over its contexts half the time. */
function ruleBody(random: Random, key: string, contexts: readonly string[], promptId: string): RuleBody {
  let rule = randomRule(random, key);
  // A random rule may be one the service refuses (a `between` without its two numbers): drawn again.
  while (checkConditionGroups(rule.condition_groups).length > 0) rule = randomRule(random, key);
  const linked = contexts.filter(() => random() < 0.6);
  const entities: RuleBody['entities'] = linked.map((entity_id) => ({ entity_type: 'context', entity_id }));
  if (random() < 0.4) entities.push({ entity_type: 'prompt', entity_id: promptId });
  const body: RuleBody = {
    name: key, key, status: random() < 0.15 ? 'INACTIVE' : 'ACTIVE', group_operator: rule.group_operator, condition_groups: rule.condition_groups, entities,
  };
  if (linked.length >= 2 && random() < 0.6) {
    body.splits = [{
      entity_type: 'context',
      bucket_by: pick(random, ['targetingKey', 'user.id']),
      variants: linked.map((entity_id, v) => ({ name: `v${v}`, entity_id, weight: 1 + Math.floor(random() * 9) })),
    }];
  } else if (entities.some((e) => e.entity_type === 'prompt') && random() < 0.5) {
    body.splits = [{
      entity_type: 'prompt',
      variants: [{ name: 'old', entity_id: promptId, version: '1.0.0', weight: 1 }, { name: 'new', entity_id: promptId, version: '1.1.0', weight: 1 }],
    }];
  }
  return body;
}

/** One seeded change: a rule's status flipped, or a linked context switched off or on; answers its position. */
async function change(admin: Client, random: Random, ruleIds: readonly string[], contexts: readonly string[]): Promise<string> {
  const answer = random() < 0.6
    ? await admin.patch(`/api/rule-engine/rules/${pick(random, ruleIds)}`, { status: random() < 0.5 ? 'INACTIVE' : 'ACTIVE' })
    : await admin.patch(`/api/contexts/${pick(random, contexts)}`, { status: random() < 0.5 ? 'INACTIVE' : 'ACTIVE' });
  if (answer.status !== 200) throw new Error(answer.text);
  return answer.headers.get('rulevault-position')!;
}

/** A context: random fields, some nested under `user`, the bucketing fields often, prompt variables, now and then an array. */
function randomContext(random: Random): Record<string, unknown> {
  const context: Record<string, unknown> = { ...randomFields(random) };
  if (random() < 0.7) context.targetingKey = `user-${Math.floor(random() * 50)}`;
  if (random() < 0.5) context.user = { id: `u-${Math.floor(random() * 50)}` };
  if (random() < 0.3) context.variables = { name: pick(random, ['Ada', 'Grace']) };
  if (random() < 0.05) context.tags = ['a', 'b'];
  return context;
}
