/**
 * Shared pieces of the fuzz suite: a real node seeded with secrets whose
 * values are recognizable, keys of every scope, a raw HTTP sender (bytes and
 * headers exactly as given), and the invariants every answer must keep.
 */
import { request } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import { client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv, type TestNode } from '../support/node';

export interface RawAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  /** The parsed body, or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface RawRequest {
  readonly method: string;
  readonly path: string;
  readonly headers?: Record<string, string | string[]>;
  readonly body?: Buffer | string;
}

/** One request with exactly these bytes and headers (fetch would normalize or refuse some). */
export function send(url: string, req: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const body = req.body === undefined ? undefined : Buffer.isBuffer(req.body) ? req.body : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string | string[] | number> = { ...req.headers };
    if (body !== undefined) headers['content-length'] = body.length;
    const outgoing = request(`${url}${req.path}`, { method: req.method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = text === '' ? undefined : JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), text, json });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export interface FuzzNode {
  readonly node: TestNode;
  readonly url: string;
  readonly keys: { readonly admin: string; readonly evaluate: string; readonly reader: string; readonly taggedReader: string };
  /** Secret key to its recognizable plaintext value. */
  readonly secrets: Readonly<Record<string, string>>;
  /** The secrets the tag-restricted reader may read (tag `llm`). */
  readonly taggedKeys: readonly string[];
  stop(): Promise<void>;
}

/** Recognizable and unguessable: a fuzzer cannot produce it by chance, so finding it in an answer is a leak. */
const canaryValue = (name: string) => `CANARY-${name}-${randomBytes(12).toString('hex')}`;

export async function startFuzzNode(overrides: Record<string, string> = {}): Promise<FuzzNode> {
  const node = await startTestNode(testEnv(tempDir('rulevault-fuzz-'), overrides));
  const admin = client(node.url, node.adminKey);
  const secrets: Record<string, string> = {};
  const plan = [['OPENAI_API_KEY', ['llm']], ['DB_PASSWORD', ['db']], ['SHARED', ['llm', 'db']]] as const;
  for (const [key, tags] of plan) {
    secrets[key] = canaryValue(key);
    const created = await admin.post('/api/vault/secrets', { key, value: secrets[key], tags });
    if (created.status !== 201) throw new Error(`seeding ${key}: ${created.status} ${created.text}`);
  }
  const newKey = async (name: string, scopes: string[], secret_tags: string[] = []) => {
    const created = await admin.post('/api/api-keys', { name, scopes, secret_tags });
    if (created.status !== 201) throw new Error(`creating key ${name}: ${created.status} ${created.text}`);
    return created.json.key as string;
  };
  // A rule that matches only if Object.prototype gained a `polluted` member the engine could read.
  const canary = await admin.post('/api/rule-engine/rules', {
    name: 'pollution canary',
    condition_groups: [{ conditions: [{ field: 'polluted', operator: 'equals', value: 'yes' }] }],
    entities: [{ entity_type: 'evaluation', entity_id: 'pollution-canary' }],
  });
  if (canary.status !== 201) throw new Error(`creating the canary rule: ${canary.status} ${canary.text}`);
  return {
    node,
    url: node.url,
    keys: {
      admin: node.adminKey,
      evaluate: await newKey('fuzz evaluate', ['evaluate']),
      reader: await newKey('fuzz reader', ['secrets:read']),
      taggedReader: await newKey('fuzz tagged reader', ['secrets:read'], ['llm']),
    },
    secrets,
    taggedKeys: ['OPENAI_API_KEY', 'SHARED'],
    stop: async () => {
      await node.stop();
      removeDir(node.dataDir);
    },
  };
}

/** Who may see which secret values in an answer. */
export type Disclosure = 'none' | 'all' | 'tagged';

/** The statuses each surface may answer (the documented ones). */
export const STATUSES = {
  evaluate: [200, 400, 401, 403, 413],
  getSecrets: [200],
  admin: [200, 201, 204, 400, 401, 403, 404, 409, 413],
} as const;

/**
 * Checks one answer: a documented status, a JSON `{err}` body on failure (get-secrets:
 * `{err, res}` always), and no secret value the caller may not see.
 */
export function checkAnswer(
  fuzz: FuzzNode,
  answer: RawAnswer,
  expect: { readonly statuses: readonly number[]; readonly getSecrets?: boolean; readonly disclosure?: Disclosure },
): string[] {
  const problems: string[] = [];
  if (!expect.statuses.includes(answer.status)) problems.push(`status ${answer.status} is not one of ${expect.statuses.join(', ')}`);
  const body = answer.json as { err?: unknown; res?: unknown } | undefined;
  if (expect.getSecrets) {
    const ok = typeof body === 'object' && body !== null
      && ((body.err === null && typeof body.res === 'object' && body.res !== null) || (typeof body.err === 'string' && body.res === null));
    if (!ok) problems.push(`get-secrets answered ${answer.text.slice(0, 200)}, not {err, res}`);
  } else if (answer.status >= 400 && (typeof body !== 'object' || body === null || typeof body.err !== 'string')) {
    problems.push(`error answer is not JSON {err}: ${answer.contentType} ${answer.text.slice(0, 200)}`);
  }
  const disclosure = expect.disclosure ?? 'none';
  for (const [key, value] of Object.entries(fuzz.secrets)) {
    const allowed = disclosure === 'all' || (disclosure === 'tagged' && fuzz.taggedKeys.includes(key));
    if (!allowed && answer.text.includes(value)) problems.push(`the value of ${key} leaked`);
  }
  return problems;
}

const prototypeNames = (proto: object) => Object.getOwnPropertyNames(proto).sort().join(',');
const BASELINE = {
  object: prototypeNames(Object.prototype),
  array: prototypeNames(Array.prototype),
  function: prototypeNames(Function.prototype),
};

/** After a batch: the process serves, no prototype gained a member, the canary rule still does not match. */
export async function checkHealthy(t: Test, fuzz: FuzzNode): Promise<void> {
  const health = await send(fuzz.url, { method: 'GET', path: '/healthz' });
  t.equal(health.status, 200, 'the node still serves');
  t.equal(({} as { polluted?: unknown }).polluted, undefined, 'Object.prototype has no `polluted`');
  t.equal(prototypeNames(Object.prototype), BASELINE.object, 'Object.prototype is unchanged');
  t.equal(prototypeNames(Array.prototype), BASELINE.array, 'Array.prototype is unchanged');
  t.equal(prototypeNames(Function.prototype), BASELINE.function, 'Function.prototype is unchanged');
  const canary = await send(fuzz.url, {
    method: 'POST',
    path: '/api/rule-engine/evaluate',
    headers: { authorization: `Bearer ${fuzz.keys.evaluate}` },
    body: JSON.stringify({ entity_type: 'evaluation', fields: {} }),
  });
  t.same(canary.json, { matchingRuleIds: [], entities: [] }, 'the pollution canary rule does not match empty fields');
}

/** Generous: catches a leak that grows with requests, not normal heap growth. */
export const RSS_HEADROOM_BYTES = 384 * 1024 * 1024;
