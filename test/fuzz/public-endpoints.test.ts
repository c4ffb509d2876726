/**
 * Fuzz: hostile bodies, headers and field maps at evaluate and get-secrets
 * on a real node. Every answer has a documented status and shape, no secret
 * value reaches a caller who may not read it, and the node stays up and
 * unpolluted.
 */
import fc from 'fast-check';
import t, { type Test } from 'tap';
import { authorization, bodyBytes, contentType, evaluateBody, getSecretsBody } from './arbitraries';
import { propertyOptions } from '../support/seeds';
import { STATUSES, checkAnswer, checkHealthy, send, startFuzzNode, type Disclosure, type FuzzNode } from './harness';

const RUNS = 200; // per property

const headersOf = (auth: string | string[] | undefined, type: string | undefined, encoding: string | undefined) => {
  const headers: Record<string, string | string[]> = {};
  if (auth !== undefined) headers.authorization = auth;
  if (type !== undefined) headers['content-type'] = type;
  if (encoding !== undefined) headers['content-encoding'] = encoding;
  return headers;
};

async function fuzzEvaluate(t: Test, fuzz: FuzzNode): Promise<void> {
  const property = fc.asyncProperty(
    bodyBytes(evaluateBody), contentType, authorization(fuzz.keys.evaluate, fuzz.keys.reader),
    async (body, type, auth) => {
      const answer = await send(fuzz.url, {
        method: 'POST', path: '/api/rule-engine/evaluate', headers: headersOf(auth, type, body.contentEncoding), body: body.bytes,
      });
        const problems = checkAnswer(fuzz, answer, { statuses: STATUSES.evaluate });
        if (answer.status === 200) {
          const json = answer.json as { matchingRuleIds?: unknown; entities?: unknown };
          if (!Array.isArray(json.matchingRuleIds) || !Array.isArray(json.entities)) problems.push(`200 without the answer shape: ${answer.text.slice(0, 200)}`);
        }
        if (problems.length > 0) throw new Error(problems.join('; '));
      },
    );
  for (const options of propertyOptions(RUNS)) await fc.assert(property, options);
  await checkHealthy(t, fuzz);
}

async function fuzzGetSecrets(t: Test, fuzz: FuzzNode): Promise<void> {
  const keys = fc.constantFrom<{ right: string; disclosure: Disclosure }>(
    { right: fuzz.keys.reader, disclosure: 'all' },
    { right: fuzz.keys.taggedReader, disclosure: 'tagged' },
    { right: fuzz.keys.admin, disclosure: 'none' },
    { right: fuzz.keys.evaluate, disclosure: 'none' },
  );
  const property = fc.asyncProperty(
    bodyBytes(getSecretsBody), contentType, keys.chain((k) => authorization(k.right, fuzz.keys.evaluate).map((auth) => ({ auth, k }))),
    async (body, type, { auth, k }) => {
      const answer = await send(fuzz.url, {
        method: 'POST', path: '/api/vault/get-secrets', headers: headersOf(auth, type, body.contentEncoding), body: body.bytes,
      });
        // Only the reader's key, as a well-formed bearer token, may see values (Node keeps the first of repeated Authorization headers).
        const first = Array.isArray(auth) ? auth[0] : auth;
        const sentExactly = /^\s*bearer\s+(\S+)\s*$/i.exec(first ?? '')?.[1] === k.right;
        const problems = checkAnswer(fuzz, answer, { statuses: STATUSES.getSecrets, getSecrets: true, disclosure: sentExactly ? k.disclosure : 'none' });
        if (problems.length > 0) throw new Error(problems.join('; '));
      },
    );
  for (const options of propertyOptions(RUNS)) await fc.assert(property, options);
  await checkHealthy(t, fuzz);
}

t.test('the public endpoints', async (t) => {
  const fuzz = await startFuzzNode();
  t.teardown(() => fuzz.stop());

  await t.test('evaluate answers 200, 400, 401, 403 or 413 with JSON, whatever it is sent', (t) => fuzzEvaluate(t, fuzz));
  await t.test('get-secrets always answers 200 {err, res}, and values only to keys that may read them', (t) => fuzzGetSecrets(t, fuzz));
  await t.test('a reader gets exactly its secrets back, opened', async (t) => {
    const all = await send(fuzz.url, { method: 'POST', path: '/api/vault/get-secrets', headers: { authorization: `Bearer ${fuzz.keys.reader}` }, body: '{}' });
    t.same(all.json, { err: null, res: fuzz.secrets }, 'the unrestricted reader reads every seeded secret');
    const tagged = await send(fuzz.url, { method: 'POST', path: '/api/vault/get-secrets', headers: { authorization: `Bearer ${fuzz.keys.taggedReader}` } });
    t.same(Object.keys((tagged.json as { res: object }).res).sort(), [...fuzz.taggedKeys].sort(), 'the tag-restricted reader reads only llm secrets');
  });
});
