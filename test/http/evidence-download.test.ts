/**
 * Black-box: the evidence file as a download (issue 67 item 4;
 * docs/auditors.md#evidence-for-one-decision), on both stores. A real node
 * records a decision; GET /api/audit/decisions/{id}/evidence is 401 without
 * a key, 403 for an evaluate or explain key, 409 saying how to get a
 * checkpoint before one signs the decision; after one, it answers a file
 * that `rulevault audit verify-evidence` checks offline exactly as the file
 * `rulevault audit evidence` writes: the same bytes but `created_at`.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { ok, startEvidenceNode } from '../audit/support/evidence-node';
import { runAudit, runOffline } from '../audit/support/run-audit';
import { call, client } from '../support/http';
import type { Store } from '../support/matrix';
import { removeDir, tempDir } from '../support/node';

/** The file's text with its top-level `created_at` (its first member of that name) blanked. */
const undated = (text: string) => text.replace(/"created_at":"[^"]*"/, '"created_at":""');

for (const store of ['sqlite', 'esdb'] as const satisfies readonly Store[]) {
  t.test(`[${store}] the evidence download verifies offline as the CLI's file does`, async (t) => {
    const { env, node, admin, stop } = await startEvidenceNode(t, store);
    const context = (await ok(admin.post('/api/contexts', { name: 'tone', content: 'Be brief.' }), 201)).json;
    const rule = (await ok(admin.post('/api/rule-engine/rules', {
      name: 'gold', condition_groups: [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }],
      entities: [{ entity_type: 'context', entity_id: context.id }],
    }), 201)).json;
    const keyOf = async (scopes: string[]) => (await ok(admin.post('/api/api-keys', { name: scopes.join('+'), scopes }), 201)).json.key as string;
    const evaluateKey = await keyOf(['evaluate']);
    const explainKey = await keyOf(['explain']);
    const answer = await ok(client(node.url, evaluateKey).post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { tier: 'gold' } }));
    t.same(answer.json.matchingRuleIds, [rule.id]);
    const id = answer.headers.get('rulevault-decision-id')!;
    const route = `/api/audit/decisions/${id}/evidence`;

    t.equal((await call(node.url, 'GET', route)).status, 401, 'no key: 401');
    t.equal((await call(node.url, 'GET', route, { key: evaluateKey })).status, 403, 'an evaluate key: 403');
    t.equal((await call(node.url, 'GET', route, { key: explainKey })).status, 403, 'an explain key: 403 (the file holds entity records)');
    const unknown = await admin.get(`/api/audit/decisions/${randomUUID()}/evidence`);
    t.equal(unknown.status, 404, 'an unknown decision: 404');
    t.match(unknown.json.err, /not sampled/);

    const early = await admin.get(route);
    t.equal(early.status, 409, 'no checkpoint yet: 409');
    t.equal(early.json.code, 'conflict');
    t.match(early.json.err, /no signed checkpoint at or after the decision's position/);
    t.match(early.json.err, /rulevault audit checkpoint/, 'it says how to get one');

    await ok(admin.post('/api/audit/chain/checkpoints'), 201);
    const publicKey = (await ok(admin.get('/api/audit/chain'))).json.signing_key.public_key as string;
    const downloaded = await ok(admin.get(route));
    t.equal(downloaded.headers.get('content-disposition'), `attachment; filename=evidence-${id}.json`, 'a download named for the decision');
    t.match(downloaded.headers.get('content-type'), /^application\/json/);
    t.equal(downloaded.json.decision.record.decision_id, id);
    t.ok(downloaded.text.includes('Be brief.'), 'the file holds the entity record the decision used');
    await stop();

    const fresh = tempDir();
    t.teardown(() => removeDir(fresh));
    writeFileSync(path.join(fresh, 'route.json'), downloaded.text);
    const cliFile = path.join(fresh, 'cli.json');
    const written = await runAudit(['evidence', id, '--out', cliFile], env);
    t.equal(written.code, 0, written.stderr);
    const cliText = readFileSync(cliFile, 'utf8');
    t.not(cliText, downloaded.text, 'each file says when it was made');
    t.equal(undated(downloaded.text), undated(cliText), 'the same bytes but created_at');

    const reports = [];
    for (const file of ['route.json', 'cli.json']) {
      const run = await runOffline(['verify-evidence', file, '--public-key', publicKey, '--json'], fresh);
      t.equal(run.code, 0, `${file} verifies offline: ${run.stderr}`);
      reports.push(JSON.parse(run.stdout));
    }
    t.equal(reports[0].verified, true);
    t.same(reports[0], reports[1], 'the same report for both');

    const altered = JSON.parse(downloaded.text);
    altered.decision.record.answer.matchingRuleIds = [];
    writeFileSync(path.join(fresh, 'altered.json'), JSON.stringify(altered));
    const caught = await runOffline(['verify-evidence', 'altered.json', '--public-key', publicKey], fresh);
    t.equal(caught.code, 3, 'an altered record in the download is named (exit 3)');
  });
}
