/**
 * Black-box: evidence for one decision (docs/auditors.md#evidence-for-one-decision).
 * A real node on SQLite answers an evaluate that a decision record keeps;
 * `rulevault audit evidence` exports it once a checkpoint signs the chain,
 * and `rulevault audit verify-evidence` checks it in a fresh folder with no
 * data folder and no RULEVAULT_* variable; then each altered part is named
 * by its message and its exit code.
 *
 * The change request is written through the real store adapter (chained as
 * any event is) with the names ADR 0062 gives its stream, events and
 * `metadata.change_request`, standing in for the change-request routes that
 * are not built yet: the evidence follows those names only.
 */
import { spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { loadConfig } from '../../src/base/config';
import { openStore } from '../../src/store/open-store';
import type { EventMetadata, Json } from '../../src/store/port';
import { client } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv, type TestNode } from '../support/node';
import { childEnv, CLI_SCRIPT, type ScriptRun } from '../support/process';
import { runAudit } from './support/run-audit';

const gold = [{ conditions: [{ field: 'tier', operator: 'equals', value: 'gold' }] }];
const tierIs = (value: string) => [{ conditions: [{ field: 'tier', operator: 'equals', value }] }];

/** The CLI in `cwd` with no RULEVAULT_* variable at all: nothing points it to a data folder. */
function runOffline(args: string[], cwd: string): Promise<ScriptRun> {
  const env = Object.fromEntries(Object.entries(childEnv()).filter(([name]) => !name.startsWith('RULEVAULT_')));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI_SCRIPT, 'audit', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A change request applied to rule `ruleId` (revision 1 to 2), written as ADR 0062 names it. */
async function applyChangeRequest(eventStore: string, ruleId: string, requestId: string): Promise<void> {
  const store = await openStore(eventStore);
  try {
    const meta = (actor: string, extra: Record<string, Json> = {}): EventMetadata => ({ actor, at: new Date().toISOString(), request_id: randomUUID(), schema: 1, ...extra } as EventMetadata);
    const stream = `change-request-${requestId}`;
    const [, revision1] = await store.readStream(`rule-${ruleId}`);
    const changes = [{ op: 'update', resource: { type: 'rule', id: ruleId }, base_revision: '1', body: { condition_groups: gold } }];
    await store.append(stream, [
      { type: 'ChangeRequestOpened', data: { id: requestId, title: 'gold again', description: 'tier gold, as agreed', changes }, metadata: meta('author-key') },
      { type: 'ChangeRequestSubmitted', data: {}, metadata: meta('author-key') },
      { type: 'ChangeRequestApproved', data: {}, metadata: meta('approver-key') },
    ], 'no_stream');
    // Revision 1's decided conditions (as the decider normalizes them), asking for gold instead.
    const data = JSON.parse(JSON.stringify(revision1!.data).replace('"bronze"', '"gold"')) as { [key: string]: Json };
    await store.append(`rule-${ruleId}`, [{ type: 'RuleUpdated', data, metadata: meta('approver-key', { change_request: requestId }) }], 1n);
    await store.append(stream, [{ type: 'ChangeRequestApplied', data: { results: [{ resource: { type: 'rule', id: ruleId }, revision: '2' }] }, metadata: meta('approver-key') }], 2n);
  } finally {
    await store.close();
  }
}

t.test('evidence of a decision verifies offline; each altered part is named', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const env = testEnv(dir, { RULEVAULT_DECISION_LOG: '1', RULEVAULT_CHAIN_CHECKPOINT_EVERY: '0' });
  let node: TestNode | undefined = await startTestNode(env);
  t.teardown(() => node?.stop());
  let admin = client(node.url, node.adminKey);
  const context = (await admin.post('/api/contexts', { name: 'gold tone', content: 'Answer in depth.' })).json;
  const rule = (await admin.post('/api/rule-engine/rules', { name: 'gold', condition_groups: tierIs('silver'), entities: [{ entity_type: 'context', entity_id: context.id }] })).json;
  t.equal((await admin.patch(`/api/rule-engine/rules/${rule.id}`, { condition_groups: tierIs('bronze') })).status, 200);
  const other = (await admin.post('/api/rule-engine/rules', { name: 'other', condition_groups: tierIs('platinum') })).json;
  await admin.post('/api/vault/secrets', { key: 'EVIDENCE_SECRET', value: 'evidence-plaintext' });
  await node.stop();

  const requestId = randomUUID();
  await applyChangeRequest(loadConfig(env).eventStore, rule.id, requestId);

  node = await startTestNode(env);
  admin = client(node.url, node.adminKey);
  const app = client(node.url, (await admin.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] })).json.key);
  const answer = await app.post('/api/rule-engine/evaluate', { entity_type: 'context', include_entity_data: true, fields: { tier: 'gold' } });
  t.same(answer.json.matchingRuleIds, [rule.id], 'the revision the change request applied answers');
  const decisionId = answer.headers.get('rulevault-decision-id')!;
  t.equal((await admin.get(`/api/audit/decisions/${decisionId}`)).status, 200, 'the record is written');
  // After the decision: the rule moves on and another rule changes; neither may be used.
  await admin.patch(`/api/rule-engine/rules/${rule.id}`, { condition_groups: tierIs('iron') });
  await admin.patch(`/api/rule-engine/rules/${other.id}`, { name: 'other, renamed' });
  await node.stop();
  node = undefined;

  const file = path.join(dir, 'decision.evidence.json');
  const early = await runAudit(['evidence', decisionId, '--out', file], env);
  t.equal(early.code, 1, 'no checkpoint yet: it says so');
  t.match(early.stderr, /no signed checkpoint at or after the decision's position/);
  t.match(early.stderr, /rulevault audit checkpoint/);
  t.equal((await runAudit(['evidence', randomUUID()], env)).code, 1, 'an unknown decision');

  t.equal((await runAudit(['checkpoint'], env)).code, 0);
  const publicKey = JSON.parse((await runAudit(['signing-key', 'show', '--json'], env)).stdout).public_key as string;
  const written = await runAudit(['evidence', decisionId, '--out', file, '--json'], env);
  t.equal(written.code, 0, written.stderr);
  const summary = JSON.parse(written.stdout);
  t.equal(summary.decision_id, decisionId);
  t.equal(summary.change_requests, 1);

  const evidence = JSON.parse(readFileSync(file, 'utf8'));
  const streams = evidence.events.map((e: { stream: string; revision: string }) => `${e.stream}@${e.revision}`).sort();
  t.same(streams, [
    `change-request-${requestId}@0`, `change-request-${requestId}@1`, `change-request-${requestId}@2`, `change-request-${requestId}@3`,
    `context-${context.id}@0`, `rule-${rule.id}@0`, `rule-${rule.id}@1`, `rule-${rule.id}@2`,
  ].sort(), 'the used rule up to the decision, its context, and the change request that made its revision');
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
  t.equal(report.change_request_events, 4);
  const human = await runOffline(['verify-evidence', 'clean.json', '--public-key', publicKey], fresh);
  t.equal(human.code, 0);
  t.match(human.stdout, /^verified: decision /);
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

  await named('record', 3, 'record', /decision record was modified/, (e) => {
    e.decision.record.answer.matchingRuleIds = [];
  });
  await named('record-rehashed', 3, 'record', /do not give the recorded answer/, (e) => {
    e.decision.record.request.fields.tier = 'silver';
    e.decision.sha256 = createHash('sha256').update(JSON.stringify(e.decision.record)).digest('hex');
  });
  await named('rule-event', 4, 'event', /rule event RuleCreated of rule-.* was modified: its data does not match/, (e) => {
    eventOf(e, `rule-${rule.id}`, 'RuleCreated').data.name = 'renamed';
  });
  await named('rule-event-left-out', 4, 'event', /revision 1 .* left out/, (e) => {
    e.events = e.events.filter((x: any) => !(x.stream === `rule-${rule.id}` && x.revision === '1'));
  });
  await named('approval', 5, 'approval', /change-request event ChangeRequestApproved .* was modified/, (e) => {
    eventOf(e, `change-request-${requestId}`, 'ChangeRequestApproved').metadata.actor = 'someone-else';
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
