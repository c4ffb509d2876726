/**
 * Change requests in the console (issue 67, item 5): a real node, the built
 * console, one headless Chromium, two keys. The author (admin) protects a
 * rule, a direct edit is refused with the 409 `protected` and opened as a
 * change request instead, and submitted; the approver (approve only) reads
 * the diff, before and after, with the rule's conditions readable, an approval of a revision
 * that moved is refused and the page reloads, then approves; the author
 * applies, and the API answers the new rule and the applied request. A
 * comment shows, a stale apply names the rule, unprotecting opens a draft,
 * and the list shows the states. Over recorded decisions, a request's page
 * shows its impact (the decisions that flip, a sample explained) and its
 * test cases, and a failing case asks the approver for an override reason.
 */
import t from 'tap';
import type { Page } from 'playwright-core';
import { client, createRule } from '../support/http';
import { removeDir, startTestNode, tempDir, testEnv, type TestNode } from '../support/node';
import { launchBrowser, type ConsoleBrowser } from './browser';

let node: TestNode;
let browser: ConsoleBrowser;
let author: Page;
let approver: Page;
const keys = { author: '', approver: '' };
let ruleId = '';
let requestId = '';
const dataDir = tempDir();

async function signIn(key: string): Promise<Page> {
  const { page } = await browser.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${node.url}/console/#/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Scopes').waitFor();
  return page;
}

t.before(async () => {
  node = await startTestNode(testEnv(dataDir, { RULEVAULT_DECISION_LOG: '1' }));
  const admin = client(node.url, node.adminKey);
  keys.author = (await admin.post('/api/api-keys', { name: 'ann-author', scopes: ['admin'] })).json.key;
  keys.approver = (await admin.post('/api/api-keys', { name: 'bob-approver', scopes: ['approve'] })).json.key;
  ruleId = await createRule(admin, {
    name: 'eu-limit',
    condition_groups: [{ conditions: [{ field: 'country', operator: 'equals', value: 'eu' }, { field: 'tier', operator: 'in', value: 'gold,silver' }] }],
  });
  browser = await launchBrowser(new URL(node.url).origin);
  author = await signIn(keys.author);
});

t.teardown(async () => {
  await browser?.close();
  await node?.stop();
  removeDir(dataDir);
});

t.test('the author protects the rule; a direct edit is refused and opened as a change request', async (t) => {
  await author.goto(`${node.url}/console/#/rules/${ruleId}`);
  await author.getByRole('button', { name: 'Protect rule "eu-limit"' }).click();
  await author.locator('.protection .badge', { hasText: 'protected' }).waitFor();
  const protections = (await client(node.url, keys.author).get('/api/protections')).json.protections;
  t.same(protections.map((p: { resource: unknown }) => p.resource), [{ type: 'rule', id: ruleId }], 'the API holds the protection');

  await author.getByLabel('Name', { exact: true }).fill('eu-limit-uk');
  await author.getByLabel('Group 1 condition 1 value').fill('uk');
  await author.getByRole('button', { name: 'Save' }).click();
  const refusal = author.getByRole('alert').filter({ hasText: 'Protected' });
  await refusal.waitFor();
  t.match(await refusal.textContent(), /409, protected/, 'the 409 protected is shown');
  t.match(await refusal.textContent(), /change-requests/, 'naming the change-request route');
  t.equal((await client(node.url, keys.author).get(`/api/rule-engine/rules/${ruleId}`)).json.name, 'eu-limit', 'nothing was written');

  await author.getByRole('button', { name: 'Open a change request with this edit' }).click();
  await author.waitForURL(/#\/changes\/[^/]+$/);
  requestId = decodeURIComponent(author.url().split('/').pop()!);
  await author.getByText('draft', { exact: true }).first().waitFor();
  const diff = author.getByLabel('update rule "eu-limit": before and after');
  await diff.locator('.diff-add', { hasText: 'group 1: country equals uk AND tier in gold,silver' }).waitFor();
  t.ok(await diff.locator('.diff-del', { hasText: 'group 1: country equals eu AND tier in gold,silver' }).isVisible(), 'the author sees before and after, conditions readable');
  t.equal(await author.getByRole('button', { name: /^Approve/ }).count(), 0, 'a key without approve is not offered approve');
  await author.getByRole('button', { name: 'Submit for review' }).click();
  await author.locator('.digest .status', { hasText: 'in_review' }).waitFor();
  t.equal(await author.getByRole('button', { name: 'Apply' }).count(), 0, 'nothing to apply before an approval');
});

t.test('the approver reads the diff, a moved request reloads, then approves', async (t) => {
  approver = await signIn(keys.approver);
  // An approve-only key starts on the change requests: the only page it has, with the test panel.
  const row = approver.getByRole('row').filter({ hasText: 'Edit rule "eu-limit"' });
  await row.waitFor();
  t.match(await row.textContent(), /in_review/);
  t.match(await row.textContent(), /0\/1/, 'approvals n/N');
  t.equal(await approver.getByRole('link', { name: 'Rules' }).count(), 0, 'no admin page offered');
  await row.getByRole('link').click();
  const diff = approver.getByLabel(/^update rule .*: before and after$/);
  await diff.locator('.diff-add', { hasText: 'group 1: country equals uk AND tier in gold,silver' }).waitFor();
  t.pass('the proposed conditions read as conditions');
  // The request's answer carries each change's `before`: an approve key reads no rule route, yet sees the current value.
  t.ok(await diff.locator('.diff-del', { hasText: 'group 1: country equals eu AND tier in gold,silver' }).isVisible(), 'the approver sees the value before, too');
  t.equal(await approver.getByRole('heading', { name: 'update rule "eu-limit"', exact: true }).count(), 1, 'the rule by its name now');
  t.equal(await approver.getByRole('button', { name: 'Apply' }).count(), 0, 'a key without admin is not offered apply');

  // The author comments meanwhile: the revision the approver reads is no longer the request's.
  t.equal((await client(node.url, keys.author).post(`/api/change-requests/${requestId}/comments`, { text: 'ticket 812' })).status, 201);
  await approver.getByRole('button', { name: /^Approve revision/ }).click();
  await approver.getByRole('alert').filter({ hasText: 'This request moved since you read revision' }).waitFor();
  await approver.getByRole('list', { name: 'comments' }).getByText('ticket 812').waitFor();
  t.pass('the refused approval says the request moved, and the page shows it as it is now');

  await approver.getByRole('textbox', { name: 'Comment', exact: true }).fill('Looks right: uk only.');
  await approver.getByRole('button', { name: 'Add comment' }).click();
  await approver.getByRole('list', { name: 'comments' }).getByText('Looks right: uk only.').waitFor();
  await approver.getByRole('button', { name: /^Approve revision/ }).click();
  await approver.locator('.digest .status', { hasText: 'approved' }).waitFor();
  const history = approver.getByRole('table', { name: 'history' });
  await history.getByRole('row').filter({ hasText: 'Approved' }).filter({ hasText: 'bob-approver' }).waitFor();
  t.ok(await history.getByRole('row').filter({ hasText: 'Commented' }).filter({ hasText: 'ticket 812' }).isVisible(), 'the history says who, when and why');
});

t.test('the author applies; the API answers the new rule and the applied request', async (t) => {
  await author.reload();
  await author.getByRole('button', { name: 'Apply' }).click();
  await author.locator('.digest .status', { hasText: 'applied' }).waitFor();
  const rule = (await client(node.url, keys.author).get(`/api/rule-engine/rules/${ruleId}`)).json;
  t.equal(rule.name, 'eu-limit-uk');
  t.equal(rule.condition_groups[0].conditions[0].value, 'uk', 'the approved edit is the rule now');
  const request = (await client(node.url, keys.author).get(`/api/change-requests/${requestId}`)).json;
  t.equal(request.state, 'applied');
  t.same(request.comments.map((c: { text: string }) => c.text), ['ticket 812', 'Looks right: uk only.']);
  // Applied: the before comes from the rule's history of this apply.
  const diff = author.getByLabel(/^update rule .*: before and after$/);
  await diff.locator('.diff-del', { hasText: 'group 1: country equals eu AND tier in gold,silver' }).waitFor();
  t.ok(await author.getByRole('button', { name: 'Open a revert' }).isVisible(), 'an applied request offers a revert');
});

t.test('applying a request whose rule moved is refused as stale, naming the rule', async (t) => {
  const asAuthor = client(node.url, keys.author);
  const asApprover = client(node.url, keys.approver);
  const ids: string[] = [];
  for (const description of ['first', 'second']) {
    const opened = await asAuthor.post('/api/change-requests', { title: `Describe ${description}`, changes: [{ op: 'update', resource: { type: 'rule', id: ruleId }, body: { description } }] });
    const id = opened.json.id as string;
    await asAuthor.post(`/api/change-requests/${id}/submit`);
    const read = await asApprover.get(`/api/change-requests/${id}`);
    t.equal((await asApprover.post(`/api/change-requests/${id}/approve`, {}, { headers: { 'if-match': read.headers.get('etag')! } })).status, 200);
    ids.push(id);
  }
  t.equal((await asAuthor.post(`/api/change-requests/${ids[0]}/apply`)).status, 200, 'the first moves the rule');
  await author.goto(`${node.url}/console/#/changes/${ids[1]}`);
  await author.getByText(/It moved since it was drafted/).waitFor();
  t.pass('the page warns before the apply');
  await author.getByRole('button', { name: 'Apply' }).click();
  const refusal = author.getByRole('alert').filter({ hasText: 'stale' });
  await refusal.waitFor();
  t.match(await refusal.textContent(), ruleId, 'the refusal names the rule');
  await author.locator('.digest .status', { hasText: 'stale' }).waitFor();
});

t.test('unprotecting opens a draft; the list shows each state', async (t) => {
  await author.goto(`${node.url}/console/#/rules/${ruleId}`);
  await author.getByRole('button', { name: 'Unprotect rule "eu-limit-uk" (opens a change request)' }).click();
  await author.waitForURL(/#\/changes\/[^/]+$/);
  await author.getByRole('heading', { name: 'unprotect rule "eu-limit-uk"', exact: true }).waitFor();
  t.equal((await client(node.url, keys.author).get('/api/protections')).json.protections.length, 1, 'still protected until approved');

  await author.goto(`${node.url}/console/#/changes`);
  const rows = author.getByRole('table', { name: 'change requests' }).getByRole('row');
  await rows.filter({ hasText: 'Unprotect rule "eu-limit-uk"' }).filter({ hasText: 'draft' }).waitFor();
  t.ok(await rows.filter({ hasText: 'Edit rule "eu-limit"' }).filter({ hasText: 'applied' }).filter({ hasText: '1/1' }).isVisible());
  t.ok(await rows.filter({ hasText: 'Describe second' }).filter({ hasText: 'stale' }).isVisible());
  t.ok(await rows.filter({ hasText: 'ann-author' }).first().isVisible(), 'the author by name');
  await author.getByLabel('State').selectOption('applied');
  await rows.filter({ hasText: 'Unprotect' }).waitFor({ state: 'detached' });
  // The old page is gone (the new one may still load): wait for the filtered one.
  await rows.filter({ hasText: 'Edit rule' }).waitFor();
  t.equal(await rows.filter({ hasText: 'Edit rule' }).count(), 1, 'filtered by state on the server');
  t.equal(await rows.filter({ hasText: 'Describe' }).count(), 1, 'the first describe request, applied');
  t.same(browser.problems, [], 'no request to another origin, no CSP violation, no page error');
});

t.test('the page shows the impact and the test cases; a failing case asks for an override reason', async (t) => {
  const asAuthor = client(node.url, keys.author);
  const asApprover = client(node.url, keys.approver);
  /** Opens, submits and approves a request through the API; answers its id. */
  const approved = async (title: string, changes: unknown[]) => {
    const id = (await asAuthor.post('/api/change-requests', { title, changes })).json.id as string;
    await asAuthor.post(`/api/change-requests/${id}/submit`);
    const read = await asApprover.get(`/api/change-requests/${id}`);
    t.equal((await asApprover.post(`/api/change-requests/${id}/approve`, {}, { headers: { 'if-match': read.headers.get('etag')! } })).status, 200);
    return id;
  };
  const cases = [{ name: 'uk gold matches', entity_type: 'context', fields: { country: 'uk', tier: 'gold' }, expect: { rules: [ruleId] } }];
  const setCases = await approved('Set test cases', [{ op: 'set-test-cases', body: { cases } }]);
  t.equal((await asAuthor.post(`/api/change-requests/${setCases}/apply`)).status, 200);

  const app = client(node.url, (await asAuthor.post('/api/api-keys', { name: 'app', scopes: ['evaluate'] })).json.key);
  for (const tier of ['gold', 'gold', 'bronze']) {
    t.equal((await app.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { country: 'uk', tier } })).status, 200);
  }
  const groups = [{ conditions: [{ field: 'country', operator: 'equals', value: 'uk' }, { field: 'tier', operator: 'in', value: 'silver' }] }];
  const opened = (await asAuthor.post('/api/change-requests', { title: 'Silver only', changes: [{ op: 'update', resource: { type: 'rule', id: ruleId }, body: { condition_groups: groups } }] })).json;
  await asAuthor.post(`/api/change-requests/${opened.id}/submit`);

  await approver.goto(`${node.url}/console/#/changes/${opened.id}`);
  await approver.getByRole('status', { name: 'impact summary' }).filter({ hasText: '2 of 3 recorded decisions would change' }).waitFor();
  const changed = approver.getByRole('table', { name: 'changed decisions' }).getByRole('row');
  t.equal(await changed.count(), 3, 'a header and the two gold decisions');
  t.match(await changed.nth(1).textContent(), new RegExp(`− ${ruleId}`), 'the rule each loses');
  const sample = approver.locator('details.explain-sample').first();
  t.notOk(await sample.locator('.explain').isVisible(), 'the sample\'s explain is collapsed');
  await sample.locator('summary').click();
  await sample.locator('.explain').waitFor();

  await approver.getByRole('status', { name: 'test summary' }).filter({ hasText: '0 passed, 1 failed' }).waitFor();
  const row = approver.getByRole('table', { name: 'test cases' }).getByRole('row').filter({ hasText: 'uk gold matches' });
  t.match(await row.textContent(), /fail/);
  t.match(await row.textContent(), new RegExp(`− rule ${ruleId} expected, not answered`), 'the case\'s diff');

  const approve = approver.getByRole('button', { name: /^Approve with override revision/ });
  t.ok(await approve.isDisabled(), 'no approval without a reason while a case fails');
  await approver.getByLabel('Override reason').fill('gold moves to its own rule next week');
  await approve.click();
  await approver.locator('.digest .status', { hasText: 'approved' }).waitFor();
  await approver.locator('.digest').getByText('override: gold moves to its own rule next week').waitFor();
  const request = (await asApprover.get(`/api/change-requests/${opened.id}`)).json;
  t.equal(request.approvals[0].override, 'gold moves to its own rule next week', 'the override is recorded');
  t.same(browser.problems, [], 'no request to another origin, no CSP violation, no page error');
});
