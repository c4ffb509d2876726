/**
 * The request workloads of the HTTP scenarios, shared by the scenarios
 * (bench/scenarios/http-*.ts) and the CPU-per-request tool (bench/cpu-per-request.ts):
 * the events a data folder is loaded with, the route, and the bodies autocannon cycles through.
 */
import { SCHEMA_VERSION } from '../src/events';
import type { BulkEvent } from '../src/store/sqlite-bulk';
import { createSealer } from '../src/vault/seal';
import { ADMIN_KEY, BENCH_KEY, benchKeyEvent, MASTER_KEY, metadata, ruleEvents } from './http-harness';
import { createRandom } from './random';
import { generateRequests, generateRules } from './workload';

export interface HttpWorkload {
  readonly label: string;
  readonly path: string;
  readonly events: readonly BulkEvent[];
  readonly bodies: readonly string[];
  /** The API key the load sends (default BENCH_KEY: evaluate and secrets:read). */
  readonly key?: string;
  /** The status every answer must have (default 200). */
  readonly status?: number;
}

export const workloadKey = (workload: HttpWorkload): string => workload.key ?? BENCH_KEY;

/** evaluate with 10k standard-workload rules, 500 request bodies (entity_type context). */
export function evaluateWorkload(): HttpWorkload {
  const events = [benchKeyEvent(), ...ruleEvents(generateRules({ seed: 1, count: 10_000 }))];
  const bodies = generateRequests({ seed: 2, count: 500 }).map((fields) => JSON.stringify({ entity_type: 'context', fields }));
  return { label: 'evaluate 10k', path: '/api/rule-engine/evaluate', events, bodies };
}

/** Rules of the standard 10k that are flags (ADR 0057: a rule with a key): the first 100, keys `flag-0`... */
export const FLAG_RULES = 100;

/** The standard 10k rules, the first FLAG_RULES of them with keys: the OFREP workloads' data. */
export function flagEvents(): BulkEvent[] {
  const bodies = generateRules({ seed: 1, count: 10_000 }).map((body, i) => (i < FLAG_RULES ? { ...body, key: `flag-${i}` } : body));
  return [benchKeyEvent(), ...ruleEvents(bodies)];
}

/** OFREP contexts: the standard requests' fields, each with a targetingKey. */
export function flagContexts(count: number): string[] {
  return generateRequests({ seed: 2, count }).map((fields, i) => JSON.stringify({ context: { targetingKey: `user-${i}`, ...fields } }));
}

/** One OFREP flag evaluation (a boolean flag) at the standard 10k rules: the same band as evaluate's, by cpu-per-request. */
export function ofrepWorkload(): HttpWorkload {
  return { label: 'OFREP flag 10k', path: '/ofrep/v1/evaluate/flags/flag-7', events: flagEvents(), bodies: flagContexts(500) };
}

/** A bulk OFREP evaluation at the standard 10k rules: every one of the FLAG_RULES flags per answer. */
export function ofrepBulkWorkload(): HttpWorkload {
  return { label: `OFREP bulk ${FLAG_RULES} flags 10k`, path: '/ofrep/v1/evaluate/flags', events: flagEvents(), bodies: flagContexts(500) };
}

const SECRETS = 200;
const TAGS = Array.from({ length: 20 }, (_, i) => `tag-${i}`);

/** get-secrets by tag: 200 sealed secrets, 20 tags, one tag per request (~15 values opened per request). */
export async function secretsWorkload(): Promise<HttpWorkload> {
  const sealer = await createSealer(Buffer.from(MASTER_KEY, 'base64'));
  const random = createRandom(7);
  const events: BulkEvent[] = [benchKeyEvent()];
  for (let i = 0; i < SECRETS; i++) {
    const id = `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`;
    const tags = [...new Set([random.pick(TAGS), random.pick(TAGS)])];
    const sealed = sealer.seal(id, 1, `bench-secret-value-${i}-${'x'.repeat(40)}`);
    events.push({ stream: `secret-${id}`, type: 'SecretCreated', data: { id, key: `BENCH_SECRET_${i}`, tags, version: 1, sealed: { ...sealed } }, metadata: { ...metadata(), schema: SCHEMA_VERSION } });
  }
  events.push({ stream: 'vault-keyring', type: 'MasterKeyEnrolled', data: { canary: { ...sealer.makeCanary() } }, metadata: metadata() });
  sealer.dispose();
  const bodies = Array.from({ length: 200 }, () => JSON.stringify({ tags: [random.pick(TAGS)] }));
  return { label: 'get-secrets by tag', path: '/api/vault/get-secrets', events, bodies };
}

/** Acknowledged rule creations (bench http-writes' load): a new standard-workload rule per request, admin key, 201 each. */
export function writesWorkload(): HttpWorkload {
  const bodies = generateRules({ seed: 3, count: 500 }).map((rule) => JSON.stringify(rule));
  return { label: 'rule writes', path: '/api/rule-engine/rules', events: [benchKeyEvent()], bodies, key: ADMIN_KEY, status: 201 };
}
