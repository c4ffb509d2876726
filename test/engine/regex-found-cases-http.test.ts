/**
 * Black-box: the regex cases random seeds once found (FOUND_REGEX_CASES in
 * cases.ts), as rules created through the admin API of a real node and
 * evaluated over HTTP. Each answer must be re2js's (the engine of record),
 * whichever of the fast matcher, the prefilter or re2js the node answers with.
 */
import { RE2JS } from 're2js';
import t from 'tap';
import { client } from '../support/http';
import { removeDir, startTestNode } from '../support/node';
import { FOUND_REGEX_CASES } from './cases';

t.test('evaluate answers each found regex case as re2js does', async (t) => {
  const node = await startTestNode();
  t.teardown(async () => {
    await node.stop();
    removeDir(node.dataDir);
  });
  const admin = client(node.url, node.adminKey);
  const key = await admin.post('/api/api-keys', { name: 'evaluator', scopes: ['evaluate'] });
  const evaluator = client(node.url, key.json.key);

  for (const [index, [pattern, value, matches]] of FOUND_REGEX_CASES.entries()) {
    t.equal(RE2JS.compile(pattern).test(value), matches, `re2js: ${JSON.stringify(pattern)} on ${JSON.stringify(value)}`);
    // The case number keeps each rule to its own row.
    const created = await admin.post('/api/rule-engine/rules', {
      name: `found ${index}`,
      condition_groups: [{
        condition_operator: 'AND',
        conditions: [
          { field: 'case', operator: 'equals', value: String(index), data_type: 'string' },
          { field: 'f', operator: 'regex', value: pattern, data_type: 'string' },
        ],
      }],
    });
    t.equal(created.status, 201, `rule with ${JSON.stringify(pattern)} created: ${created.text}`);
    const answer = await evaluator.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { case: String(index), f: value } });
    t.equal(answer.status, 200);
    t.same(answer.json.matchingRuleIds, matches ? [created.json.id] : [], `${JSON.stringify(pattern)} on ${JSON.stringify(value)}: ${matches ? 'match' : 'no match'}`);
  }
});
