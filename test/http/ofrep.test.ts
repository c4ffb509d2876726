/**
 * Black-box: OFREP over raw HTTP on both stores (issue 66 item 2;
 * docs/openfeature.md). Rules with keys answer as boolean, string and object
 * flags with their metadata; DISABLED, DEFAULT and every OFREP error with its
 * status; both key headers; the bulk answer's ETag and 304; unique keys
 * (409); and each evaluation's decision record, whose replay gives the
 * flag's answer again.
 */
import t from 'tap';
import { forCells } from '../support/matrix';
import { call, type Answer } from '../support/http';
import { withNode, type LiveNode } from '../support/with-node';
import { lookupFlag, resolveFlag, type FlagContext } from '../../src/service/flags';
import type { RuleRecord } from '../../projections';

const FLAGS = '/ofrep/v1/evaluate/flags';
const DECISION = 'rulevault-decision-id';

interface Setup {
  readonly evaluateKey: string;
  readonly readerKey: string;
  readonly ids: Record<string, string>;
}

async function setUp(live: LiveNode): Promise<Setup> {
  const ids: Record<string, string> = {};
  const made = async (path: string, body: unknown) => {
    const answer = await live.admin.post(path, body);
    if (answer.status !== 201) throw new Error(`${path}: ${answer.text}`);
    return answer.json.id as string;
  };
  for (const name of ['banner', 'blue', 'green']) ids[name] = await made('/api/contexts', { name, content: `the ${name} context` });
  ids.greet = await made('/api/prompts', { name: 'greet', prompt: 'Hello {{name}}' });
  const gold = [{ conditions: [{ field: 'user.tier', operator: 'equals', value: 'gold' }] }];
  ids.beta = await made('/api/rule-engine/rules', {
    name: 'beta', key: 'beta', condition_groups: gold,
    entities: [{ entity_type: 'context', entity_id: ids.banner }, { entity_type: 'prompt', entity_id: ids.greet }],
  });
  ids.theme = await made('/api/rule-engine/rules', {
    name: 'theme', key: 'theme', condition_groups: [{ conditions: [{ field: 'country', operator: 'equals', value: 'CA' }] }],
    entities: [{ entity_type: 'context', entity_id: ids.blue }, { entity_type: 'context', entity_id: ids.green }],
    splits: [{ entity_type: 'context', variants: [{ name: 'blue', entity_id: ids.blue, weight: 50 }, { name: 'green', entity_id: ids.green, weight: 50 }] }],
  });
  ids.off = await made('/api/rule-engine/rules', { name: 'off', key: 'off', status: 'INACTIVE', condition_groups: gold });
  ids.unkeyed = await made('/api/rule-engine/rules', { name: 'no key', condition_groups: gold });
  const evaluateKey = (await live.admin.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] })).json.key as string;
  const readerKey = (await live.admin.post('/api/api-keys', { name: 'reader', scopes: ['secrets:read'] })).json.key as string;
  return { evaluateKey, readerKey, ids };
}

forCells(t, 'ofrep', (t, cell) => {
  const live = withNode(t, { cell, env: { RULEVAULT_DECISION_LOG: '1' } });
  let setup: Setup;
  t.before(async () => {
    setup = await setUp(live);
  });
  const flag = (key: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${setup.evaluateKey}` }): Promise<Answer> =>
    call(live.url, 'POST', `${FLAGS}/${encodeURIComponent(key)}`, { body, headers });
  const bulk = (body: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
    call(live.url, 'POST', FLAGS, { body, headers: { authorization: `Bearer ${setup.evaluateKey}`, ...headers } });
  const gold = { context: { targetingKey: 'u1', user: { tier: 'gold' }, country: 'CA' } };

  t.test('a rule without a split is a boolean flag: true on a match, false and DEFAULT otherwise', async (t) => {
    const on = await flag('beta', gold);
    t.equal(on.status, 200, on.text);
    t.match(on.headers.get('content-type'), /^application\/json/);
    t.same(on.json, { key: 'beta', value: true, variant: 'on', reason: 'TARGETING_MATCH', metadata: { rule_id: setup.ids.beta, revision: 0, position: on.json.metadata.position } });
    t.match(on.json.metadata.position, /^[0-9]+$/, 'the position that answered, as a string');
    t.match(on.headers.get(DECISION), /^[0-9a-f-]{36}$/, 'the evaluation has a decision id');
    const off = await flag('beta', { context: { user: { tier: 'silver' } } });
    t.equal(off.status, 200);
    t.match(off.json, { key: 'beta', value: false, variant: 'off', reason: 'DEFAULT' });
    const dotted = await flag('beta', { context: { 'user.tier': 'gold' } });
    t.equal(dotted.json.value, true, 'a dotted name is the nested member');
    const nulled = await flag('beta', { context: { user: { tier: null } } });
    t.equal(nulled.json.value, false, 'null is an absent field');
  });

  t.test('a rule with a split is a string flag: the variant its split chose, SPLIT', async (t) => {
    const answer = await flag('theme', gold);
    t.equal(answer.status, 200, answer.text);
    t.ok(['blue', 'green'].includes(answer.json.value), `a variant: ${answer.json.value}`);
    t.match(answer.json, { key: 'theme', variant: answer.json.value, reason: 'SPLIT', metadata: { rule_id: setup.ids.theme, revision: 0 } });
    t.equal((await flag('theme', gold)).json.value, answer.json.value, 'the same user gets the same variant');
    const unmatched = await flag('theme', { context: { country: 'FR', targetingKey: 'u1' } });
    t.same(Object.keys(unmatched.json).sort(), ['key', 'metadata', 'reason'], 'no value: the caller keeps its default');
    t.equal(unmatched.json.reason, 'DEFAULT');
  });

  t.test('<key>:<entity type> is an object flag: the linked record, a prompt compiled with the context\'s variables', async (t) => {
    const prompt = await flag('beta:prompt', { context: { ...gold.context, variables: { name: 'Ada' } } });
    t.equal(prompt.status, 200, prompt.text);
    t.match(prompt.json, { key: 'beta:prompt', reason: 'TARGETING_MATCH', variant: setup.ids.greet, value: { id: setup.ids.greet, name: 'greet', compiled_prompt: 'Hello Ada' } });
    const context = await flag('beta:context', gold);
    t.match(context.json, { key: 'beta:context', reason: 'TARGETING_MATCH', value: { id: setup.ids.banner, content: 'the banner context' } });
    const chosen = await flag('theme:context', gold);
    t.match(chosen.json, { reason: 'SPLIT', variant: (await flag('theme', gold)).json.value, value: { name: chosen.json.variant } });
  });

  t.test('an inactive rule answers DISABLED with no value and no decision', async (t) => {
    const answer = await flag('off', gold);
    t.equal(answer.status, 200);
    t.same(answer.json, { key: 'off', reason: 'DISABLED', metadata: { rule_id: setup.ids.off, revision: 0, position: answer.json.metadata.position } });
    t.equal(answer.headers.get(DECISION), null);
  });

  t.test('FLAG_NOT_FOUND is a 404 naming the flag', async (t) => {
    for (const key of ['nope', setup.ids.unkeyed, 'beta:evaluation', 'beta:dataset', 'off:context']) {
      const answer = await flag(key, gold);
      t.equal(answer.status, 404, key);
      t.match(answer.json, { key, errorCode: 'FLAG_NOT_FOUND', errorDetails: /was not found/ }, key);
    }
  });

  t.test('PARSE_ERROR, INVALID_CONTEXT and TARGETING_KEY_MISSING are 400s naming what is wrong', async (t) => {
    const headers = { authorization: `Bearer ${setup.evaluateKey}`, 'content-type': 'application/json' };
    for (const raw of ['not json', '{"context":', '', '[]', '{"context": []}', '{"context": "x"}']) {
      const answer = await call(live.url, 'POST', `${FLAGS}/beta`, { raw, headers });
      t.equal(answer.status, 400, JSON.stringify(raw));
      t.match(answer.json, { key: 'beta', errorCode: 'PARSE_ERROR', errorDetails: /\w/ }, JSON.stringify(raw));
    }
    const arrayed = await flag('beta', { context: { user: { tags: ['a'] } } });
    t.equal(arrayed.status, 400);
    t.match(arrayed.json, { key: 'beta', errorCode: 'INVALID_CONTEXT', errorDetails: /context\.user\.tags is an array/ });
    const twice = await flag('beta', { context: { user: { tier: 'gold' }, 'user.tier': 'gold' } });
    t.match(twice.json, { errorCode: 'INVALID_CONTEXT', errorDetails: /twice/ });
    const missing = await flag('theme', { context: { country: 'CA' } });
    t.equal(missing.status, 400);
    t.match(missing.json, { key: 'theme', errorCode: 'TARGETING_KEY_MISSING', errorDetails: /targetingKey/ });
    const unmatchedMissing = await flag('theme', { context: { country: 'FR' } });
    t.equal(unmatchedMissing.json.reason, 'DEFAULT', 'a rule that does not match needs no bucketing field');
  });

  t.test('a key as Bearer or X-API-Key; none 401, without the evaluate scope 403, a revoked one 401 at once', async (t) => {
    const none = await flag('beta', gold, {});
    t.equal(none.status, 401);
    t.match(none.json, { key: 'beta', errorCode: 'GENERAL', errorDetails: /X-API-Key/ });
    t.equal((await flag('beta', gold, { 'x-api-key': setup.evaluateKey })).json.value, true, 'X-API-Key');
    for (const headers of [{ 'x-api-key': setup.readerKey }, { authorization: `Bearer ${setup.readerKey}` }] as Record<string, string>[]) {
      const refused = await flag('beta', gold, headers);
      t.equal(refused.status, 403, Object.keys(headers)[0]);
      t.match(refused.json, { key: 'beta', errorCode: 'GENERAL', errorDetails: /evaluate scope/ });
    }
    t.equal((await flag('beta', gold, { 'x-api-key': 'rv_guessed' })).status, 401, 'an unknown key');
    const bulkNone = await call(live.url, 'POST', FLAGS, { body: gold });
    t.equal(bulkNone.status, 401);
    t.same(Object.keys(bulkNone.json).sort(), ['errorCode', 'errorDetails'], 'the bulk route names no key');
    t.equal((await bulk(gold, { authorization: `Bearer ${setup.readerKey}` })).status, 403);
    const doomed = await live.admin.post('/api/api-keys', { name: 'doomed', scopes: ['evaluate'] });
    t.equal((await flag('beta', gold, { 'x-api-key': doomed.json.key })).status, 200);
    t.equal((await live.admin.delete(`/api/api-keys/${doomed.json.id}`)).status, 204);
    t.equal((await flag('beta', gold, { 'x-api-key': doomed.json.key })).status, 401, 'revoked: refused on the next request');
    t.equal((await bulk(gold, { authorization: `Bearer ${doomed.json.key}` })).status, 401);
    const wrongMethod = await call(live.url, 'GET', `${FLAGS}/beta`, { key: setup.evaluateKey });
    t.equal(wrongMethod.status, 404);
    t.match(wrongMethod.json, { errorCode: 'GENERAL', errorDetails: /no route for GET/ });
  });

  t.test('bulk: every flag in key order with a strong ETag; 304 while nothing changed, 200 after a write', async (t) => {
    const first = await bulk(gold);
    t.equal(first.status, 200, first.text);
    t.same(first.json.flags.map((f: { key: string }) => f.key), ['beta', 'beta:context', 'beta:prompt', 'off', 'theme', 'theme:context']);
    t.match(first.json.flags[0], { key: 'beta', value: true, reason: 'TARGETING_MATCH' });
    t.match(first.json.flags[4], { key: 'theme', value: (await flag('theme', gold)).json.value, reason: 'SPLIT' });
    t.same(first.json.metadata, { position: first.json.flags[0].metadata.position });
    const etag = first.headers.get('etag')!;
    t.match(etag, /^"[A-Za-z0-9_-]+"$/, 'a strong ETag');
    t.equal(first.headers.get(DECISION)!.split(', ').length, 2, 'one decision per evaluate run: context and prompt');

    const same = await bulk(gold, { 'if-none-match': etag });
    t.equal(same.status, 304);
    t.equal(same.text, '', 'no body');
    t.equal(same.headers.get('etag'), etag);
    t.equal((await bulk(gold, { 'if-none-match': `"other", W/${etag}` })).status, 304, 'a list, weakly compared');
    t.equal((await bulk({ context: { targetingKey: 'u1', user: { tier: 'silver' } } }, { 'if-none-match': etag })).status, 200, 'another context is another answer');

    const write = await live.admin.patch(`/api/rule-engine/rules/${setup.ids.beta}`, { description: 'changed' });
    t.equal(write.status, 200);
    const after = await bulk(gold, { 'if-none-match': etag });
    t.equal(after.status, 200, 'a write: the answer (its revision, its position) changed');
    t.not(after.headers.get('etag'), etag);
    t.match(after.json.flags[0].metadata, { revision: 1 });
    t.equal((await bulk(gold, { 'if-none-match': after.headers.get('etag')! })).status, 304);

    const partial = await bulk({ context: { country: 'CA' } });
    t.equal(partial.status, 200, 'a flag that fails is an item');
    t.match(partial.json.flags.find((f: { key: string }) => f.key === 'theme'), { key: 'theme', errorCode: 'TARGETING_KEY_MISSING' });
    const bad = await bulk({ context: { user: { tags: ['a'] } } });
    t.equal(bad.status, 400);
    t.same(Object.keys(bad.json).sort(), ['errorCode', 'errorDetails']);
    t.equal(bad.json.errorCode, 'INVALID_CONTEXT');
    t.equal((await call(live.url, 'POST', FLAGS, { raw: 'nope', headers: { authorization: `Bearer ${setup.evaluateKey}` } })).json.errorCode, 'PARSE_ERROR');
  });

  t.test('a key names one flag: a create or import naming a live rule\'s key is a 409 naming the holder', async (t) => {
    const body = { name: 'again', key: 'beta', condition_groups: [{ conditions: [{ field: 'a', operator: 'equals', value: '1' }] }] };
    const taken = await live.admin.post('/api/rule-engine/rules', body);
    t.equal(taken.status, 409);
    t.match(taken.json, { code: 'conflict', err: new RegExp(`key "beta" is taken by rule ${setup.ids.beta}`) });
    t.equal((await live.admin.post('/api/rule-engine/rules', { ...body, key: 'off' })).status, 409, 'an inactive rule holds its key');
    const imported = await call(live.url, 'POST', '/api/import', { key: live.node.adminKey, raw: JSON.stringify([{ kind: 'rule', ...body }]) });
    t.equal(imported.status, 409);
    t.match(imported.json.err, /\[0\].*taken by rule/);
    const twice = await call(live.url, 'POST', '/api/import', { key: live.node.adminKey, raw: JSON.stringify([{ kind: 'rule', ...body, key: 'dup' }, { kind: 'rule', ...body, key: 'dup' }]) });
    t.equal(twice.status, 409, 'two items of one import');
    t.equal((await flag('dup', gold)).status, 404, 'nothing was imported');
    // A deleted rule's key is free again.
    const temp = await live.admin.post('/api/rule-engine/rules', { ...body, key: 'temp' });
    t.equal(temp.status, 201);
    t.equal((await flag('temp', { context: { a: '1' } })).json.value, true, 'a new flag answers at once');
    t.equal((await live.admin.delete(`/api/rule-engine/rules/${temp.json.id}`)).status, 204);
    t.equal((await flag('temp', { context: { a: '1' } })).status, 404, 'a deleted rule is no flag');
    t.equal((await live.admin.post('/api/rule-engine/rules', { ...body, key: 'temp' })).status, 201, 'its key is free again');
    const dry = await live.admin.post('/api/rule-engine/dry-run', { entity_type: 'context', fields: {}, rules: [body] });
    t.equal(dry.status, 200, 'a dry-run draft may name a taken key');
  });

  t.test('each evaluation is a decision record whose replay gives the flag\'s answer again', async (t) => {
    const context: FlagContext = { fields: { country: 'CA', targetingKey: 'u7' }, variables: {} };
    const answer = await flag('theme', { context: { country: 'CA', targetingKey: 'u7' } });
    const id = answer.headers.get(DECISION)!;
    const record = await live.admin.get(`/api/audit/decisions/${id}`);
    t.equal(record.status, 200, record.text);
    t.match(record.json.request, { entity_type: 'context', fields: { country: 'CA', targetingKey: 'u7' }, include_entity_data: false });
    const replay = await live.admin.get(`/api/audit/decisions/${id}/replay`);
    t.equal(replay.json.same, true, 'the replay matches the record');
    // The flag read off the replayed answer, with the rule as it was: the same value, variant and reason.
    const rule = (await live.admin.get(`/api/rule-engine/rules/${setup.ids.theme}`)).json as RuleRecord;
    const ref = lookupFlag('theme', () => rule);
    const again = resolveFlag(ref as Exclude<typeof ref, { errorCode: string }>, context, () => replay.json.replayed, BigInt(answer.json.metadata.position));
    t.same(again, answer.json, 'resolveFlag over the replay is the OFREP answer');

    const all = await bulk(gold);
    const ids = all.headers.get(DECISION)!.split(', ');
    const types: string[] = [];
    for (const decision of ids) {
      const replayed = await live.admin.get(`/api/audit/decisions/${decision}/replay`);
      t.equal(replayed.json.same, true, `bulk decision ${decision} replays`);
      types.push((await live.admin.get(`/api/audit/decisions/${decision}`)).json.request.entity_type);
    }
    t.same(types, ['context', 'prompt'], 'one per entity type the flags ask for');
  });

  t.test('explain names the flag\'s rule with the context as fields', async (t) => {
    const explainKey = (await live.admin.post('/api/api-keys', { name: 'explainer', scopes: ['explain'] })).json.key as string;
    const explained = await call(live.url, 'POST', '/api/rule-engine/explain', {
      key: explainKey, body: { entity_type: 'context', fields: { 'user.tier': 'silver' }, rule_ids: [setup.ids.beta] },
    });
    t.equal(explained.status, 200, explained.text);
    t.equal(explained.json.rules[0]?.matched, false, 'the rule of a DEFAULT answer, explained');
  });
});
