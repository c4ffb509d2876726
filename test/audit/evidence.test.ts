/**
 * Black-box: evidence for one decision (docs/auditors.md#evidence-for-one-decision),
 * made by a real change request, on both stores. A real node protects a
 * rule; an admin key opens a change request over HTTP that edits it and
 * submits it, a second key (scope `approve`) approves it, the admin applies
 * it; an evaluate that a decision record keeps depends on the applied
 * revision. `rulevault audit evidence` exports it once a checkpoint signs the
 * chain, and `rulevault audit verify-evidence` checks it in a fresh folder
 * with no data folder and no RULEVAULT_* variable; then each altered part
 * (issue 67: the record, a rule event, an approval, a chain link; and the
 * signature) is named by its message and its exit code.
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { call, client, type Client } from '../support/http';
import type { Store } from '../support/matrix';
import { removeDir, tempDir } from '../support/node';
import type { ScriptRun } from '../support/process';
import { ok, startEvidenceNode } from './support/evidence-node';
import { runAudit, runOffline } from './support/run-audit';

const CR = '/api/change-requests';
const tierIs = (value: string) => [{ conditions: [{ field: 'tier', operator: 'equals', value }] }];

/** Opens a change request of `changes` as `author`, submits it, approves it as `approver` (naming the revision read), applies it as `author`. */
async function changeThrough(author: Client, approver: Client, title: string, changes: unknown[]): Promise<{ id: string; applied: any }> {
  const id = (await ok(author.post(CR, { title, description: `${title}: ticket 812`, changes }), 201)).json.id as string;
  await ok(author.post(`${CR}/${id}/submit`));
  const read = await ok(approver.get(`${CR}/${id}`));
  await ok(approver.post(`${CR}/${id}/approve`, undefined, { headers: { 'If-Match': read.headers.get('etag')! } }));
  const applied = (await ok(author.post(`${CR}/${id}/apply`))).json;
  return { id, applied };
}

for (const store of ['sqlite', 'esdb'] as const satisfies readonly Store[]) {
  t.test(`[${store}] evidence of a decision a change request made verifies offline; each altered part is named`, async (t) => {
    const { dir, env, node, admin, stop } = await startEvidenceNode(t, store);
    const context = (await ok(admin.post('/api/contexts', { name: 'gold tone', content: 'Answer in depth.' }), 201)).json;
    const rule = (await ok(admin.post('/api/rule-engine/rules', { name: 'gold', condition_groups: tierIs('silver'), entities: [{ entity_type: 'context', entity_id: context.id }] }), 201)).json;
    await ok(admin.patch(`/api/rule-engine/rules/${rule.id}`, { condition_groups: tierIs('bronze') }));
    const other = (await ok(admin.post('/api/rule-engine/rules', { name: 'other', condition_groups: tierIs('platinum') }), 201)).json;
    await ok(admin.post('/api/vault/secrets', { key: 'EVIDENCE_SECRET', value: 'evidence-plaintext' }), 201);
    const approverKey = (await ok(admin.post('/api/api-keys', { name: 'approver', scopes: ['approve'] }), 201)).json;
    const approver = client(node.url, approverKey.key);
    const app = client(node.url, (await ok(admin.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] }), 201)).json.key);

    await ok(call(node.url, 'PUT', '/api/protections', { key: node.adminKey, body: { resource: { type: 'rule', id: rule.id } } }));
    const direct = await admin.patch(`/api/rule-engine/rules/${rule.id}`, { condition_groups: tierIs('gold') });
    t.equal(direct.status, 409, 'protected: no direct write');
    t.equal(direct.json.code, 'protected');

    const { id: requestId, applied } = await changeThrough(admin, approver, 'gold again', [
      { op: 'update', resource: { type: 'rule', id: rule.id }, body: { condition_groups: tierIs('gold') } },
    ]);
    t.equal(applied.state, 'applied', 'the change request applied');
    t.same(applied.results, [{ op: 'update', resource: { type: 'rule', id: rule.id }, before_revision: '1', revision: '2' }]);

    const answer = await ok(app.post('/api/rule-engine/evaluate', { entity_type: 'context', include_entity_data: true, fields: { tier: 'gold' } }));
    t.same(answer.json.matchingRuleIds, [rule.id], 'the revision the change request applied answers');
    const decisionId = answer.headers.get('rulevault-decision-id')!;
    t.equal((await admin.get(`/api/audit/decisions/${decisionId}`)).status, 200, 'the record is written');
    // After the decision: the rule moves on by another request, and another rule changes; neither may be used.
    const { id: laterId } = await changeThrough(admin, approver, 'iron', [
      { op: 'update', resource: { type: 'rule', id: rule.id }, body: { condition_groups: tierIs('iron') } },
    ]);
    await ok(admin.patch(`/api/rule-engine/rules/${other.id}`, { name: 'other, renamed' }));
    await stop();

    const file = path.join(dir, 'decision.evidence.json');
    const early = await runAudit(['evidence', decisionId, '--out', file], env);
    t.equal(early.code, 1, 'no checkpoint yet: it says so');
    t.match(early.stderr, /no signed checkpoint at or after the decision's position/);
    t.match(early.stderr, /rulevault audit checkpoint/);
    t.equal((await runAudit(['evidence', randomUUID()], env)).code, 1, 'an unknown decision');

    const signed = await runAudit(['checkpoint'], env);
    t.equal(signed.code, 0, signed.stderr);
    const publicKey = JSON.parse((await runAudit(['signing-key', 'show', '--json'], env)).stdout).public_key as string;
    const written = await runAudit(['evidence', decisionId, '--out', file, '--json'], env);
    t.equal(written.code, 0, written.stderr);
    const summary = JSON.parse(written.stdout);
    t.equal(summary.decision_id, decisionId);
    t.equal(summary.change_requests, 1, 'the request that made the revision, not the later one');

    const evidence = JSON.parse(readFileSync(file, 'utf8'));
    const ofStream = (stream: string) => evidence.events.filter((e: any) => e.stream === stream);
    const requestStream = `change-request-${requestId}`;
    t.same(ofStream(`rule-${rule.id}`).map((e: any) => e.revision), ['0', '1', '2'], 'the used rule up to the decision');
    t.same(ofStream(`context-${context.id}`).map((e: any) => e.revision), ['0'], 'its context');
    // What an apply really writes (ADR 0062): on EventStoreDB the plan first.
    const steps = ['ChangeRequestOpened', 'ChangeRequestSubmitted', 'ChangeRequestApproved', ...(store === 'esdb' ? ['ChangeRequestApplying'] : []), 'ChangeRequestApplied'];
    t.same(ofStream(requestStream).map((e: any) => e.type), steps, 'the change request that made its revision, every step');
    t.same(ofStream(`change-request-${laterId}`), [], 'not the request applied after the decision');
    t.equal(evidence.events.length, 4 + steps.length, 'nothing else');
    const [revision2] = ofStream(`rule-${rule.id}`).slice(2);
    t.equal(revision2.metadata.change_request, requestId, 'the applied revision names its request');
    const approval = ofStream(requestStream).find((e: any) => e.type === 'ChangeRequestApproved');
    t.equal(approval.metadata.actor, approverKey.id, 'the approver is the approval\'s actor');
    t.same(approval.data, { id: requestId, revision: '1' }, 'the approval names the request revision it read');
    t.equal(ofStream(requestStream).at(-1).metadata.change_request, requestId, 'the request\'s ChangeRequestApplied names it too');
    t.ok(evidence.chain.links.some((l: { stream: string }) => l.stream === `rule-${other.id}`), 'the chain between them is whole');
    t.notOk(evidence.chain.links.some((l: object) => 'data' in l), 'link records carry no data');
    t.notOk(readFileSync(file, 'utf8').includes('evidence-plaintext'), 'no secret');

    const fresh = tempDir();
    t.teardown(() => removeDir(fresh));
    const check = async (name: string, alter: (e: any) => void) => {
      const copy = JSON.parse(JSON.stringify(evidence));
      alter(copy);
      writeFileSync(path.join(fresh, `${name}.json`), JSON.stringify(copy));
      return runOffline(['verify-evidence', `${name}.json`, '--public-key', publicKey, '--json'], fresh);
    };

    const clean = await check('clean', () => undefined);
    t.equal(clean.code, 0, clean.stderr || clean.stdout);
    const report = JSON.parse(clean.stdout);
    t.equal(report.verified, true);
    t.same(report.findings, []);
    t.equal(report.replay.same, true, 'the included revisions give the recorded answer');
    t.ok(report.replay.recorded.entity_data_sha256, 'entity data included');
    t.equal(report.change_request_events, steps.length);
    t.same(report.change_requests, [{
      id: requestId, title: 'gold again', author: 'env-admin', approvals: [{ by: approverKey.id, at: approval.metadata.at, revision: '1' }],
      applied_at: ofStream(requestStream).find((e: any) => e.type === steps[3]).metadata.at,
    }], 'who opened the request, who approved which revision, when it applied');
    const human = await runOffline(['verify-evidence', 'clean.json', '--public-key', publicKey], fresh);
    t.equal(human.code, 0);
    t.match(human.stdout, /^verified: decision /);
    t.match(human.stdout, `change request ${requestId} "gold again": opened by env-admin, approved by ${approverKey.id} (revision 1), applied at `);
    t.same(readdirSync(fresh).sort(), ['clean.json'], 'offline: no data folder, nothing else written');

    const findingsOf = (run: ScriptRun) => (JSON.parse(run.stdout).findings as { part: string; message: string }[]);
    const named = async (name: string, code: number, part: string, pattern: RegExp, alter: (e: any) => void) => {
      const run = await check(name, alter);
      t.equal(run.code, code, `${name}: exit ${code}`);
      const [first] = findingsOf(run);
      t.equal(first?.part, part, `${name}: names the ${part}`);
      t.match(first?.message, pattern, name);
    };
    const eventOf = (e: any, stream: string, type: string) => e.events.find((x: any) => x.stream === stream && x.type === type);

    // The four: the record, a rule event, an approval, a chain link.
    await named('record', 3, 'record', /decision record was modified/, (e) => {
      e.decision.record.answer.matchingRuleIds = [];
    });
    await named('record-rehashed', 3, 'record', /do not give the recorded answer/, (e) => {
      e.decision.record.request.fields.tier = 'silver';
      e.decision.sha256 = createHash('sha256').update(JSON.stringify(e.decision.record)).digest('hex');
    });
    await named('rule-event', 4, 'event', /rule event RuleUpdated of rule-.* at revision 2 .* was modified: its data does not match/, (e) => {
      e.events.find((x: any) => x.stream === `rule-${rule.id}` && x.revision === '2').data.name = 'renamed';
    });
    await named('rule-event-left-out', 4, 'event', /revision 1 .* left out/, (e) => {
      e.events = e.events.filter((x: any) => !(x.stream === `rule-${rule.id}` && x.revision === '1'));
    });
    await named('approval', 5, 'approval', /change-request event ChangeRequestApproved .* was modified/, (e) => {
      eventOf(e, requestStream, 'ChangeRequestApproved').metadata.actor = 'someone-else';
    });
    await named('approval-revision', 5, 'approval', /change-request event ChangeRequestApproved .* was modified: its data does not match/, (e) => {
      eventOf(e, requestStream, 'ChangeRequestApproved').data.revision = '0';
    });
    await named('approval-left-out', 5, 'approval', /revision 2 .* left out/, (e) => {
      e.events = e.events.filter((x: any) => x.type !== 'ChangeRequestApproved');
    });
    await named('chain-link', 6, 'chain', /chain link at position .* does not match its content/, (e) => {
      e.chain.links.find((l: any) => l.stream === `rule-${other.id}`).metadata.actor = 'someone-else';
    });
    await named('signature', 7, 'signature', /signature does not verify/, (e) => {
      const signature: string = e.checkpoint.data.signature;
      e.checkpoint.data.signature = (signature[0] === 'A' ? 'B' : 'A') + signature.slice(1);
    });

    const otherKey = Buffer.alloc(32, 7).toString('base64');
    const untrusted = await runOffline(['verify-evidence', 'clean.json', '--public-key', otherKey], fresh);
    t.equal(untrusted.code, 7, 'a key the auditor does not trust');
    t.match(untrusted.stdout, /ALTERED: the checkpoint's signature[\s\S]*none of the public keys given/);
    const noKey = await runOffline(['verify-evidence', 'clean.json'], fresh);
    t.equal(noKey.code, 2, 'a public key is required');
    writeFileSync(path.join(fresh, 'junk.json'), '{"format":"something else"}');
    const junk = await runOffline(['verify-evidence', 'junk.json', '--public-key', publicKey], fresh);
    t.equal(junk.code, 1, 'not an evidence file: the check could not run');
    t.match(junk.stderr, /not a RuleVault evidence file/);
  });
}
