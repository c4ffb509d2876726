/**
 * The README's quick-start script, run as a newcomer runs it: the service
 * started as its own process on a fresh data folder with no admin key set,
 * the admin key taken from the banner its first start prints, then the
 * script's block run by bash, unedited, with only ADMIN (and RV, the
 * service's address) in its environment. It must create everything it says
 * and print the answers the README promises.
 */
import { spawn } from 'node:child_process';
import t from 'tap';
import { removeDir, tempDir } from '../support/temp';
import { spawnServiceFor } from '../support/process';
import { readDoc } from './markdown';

/** The ```sh block after the README's `<!-- quick-start` marker, as written. */
function quickStartScript(): string {
  const readme = readDoc('README.md');
  const marker = readme.indexOf('<!-- quick-start');
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(marker));
  if (marker === -1 || block === null) throw new Error('the README has no quick-start block');
  return block[1]!;
}

function bash(script: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

t.test('the quick-start script runs top to bottom against a freshly started service', async (t) => {
  const dataDir = tempDir('rulevault-quick-start-');
  t.teardown(() => removeDir(dataDir));
  const service = await spawnServiceFor(t, { RULEVAULT_DATA_DIR: dataDir, RULEVAULT_ADMIN_KEY: '', RULEVAULT_MASTER_KEY: '', RULEVAULT_EVENTSTORE: '' });
  const banner = /RuleVault created an admin API key\. It is shown only this once: store it now\.\n\n +(rv_\S+)\n/.exec(service.output());
  t.ok(banner, 'the first start prints the admin key in its banner');
  const run = await bash(quickStartScript(), { ADMIN: banner![1]!, RV: service.url });
  t.equal(run.stderr, '', 'nothing on stderr');
  t.equal(run.code, 0, 'exit 0');

  const [ids, context, prompt, byKey, byTags, ...rest] = run.stdout.split('\n');
  t.same(rest, [''], 'five lines of output');
  const said = /^rule ([0-9a-f-]{36}) links context ([0-9a-f-]{36}) and prompt ([0-9a-f-]{36})$/.exec(ids ?? '');
  t.ok(said, `the ids it captured: ${ids}`);
  const [, ruleId, contextId, promptId] = said ?? [];

  const contextAnswer = JSON.parse(context!);
  t.same(contextAnswer.matchingRuleIds, [ruleId], 'evaluate matches the rule');
  t.same(contextAnswer.entities, [{ rule_id: ruleId, entity_type: 'context', entity_id: contextId, variant: null, reason: 'TARGETING_MATCH' }]);
  t.equal(contextAnswer.entity_data[`context:${contextId}`].content, 'Answer in depth, with sources.', 'and answers the context');

  const promptAnswer = JSON.parse(prompt!);
  const record = promptAnswer.entity_data[`prompt:${promptId}`];
  t.equal(record.version, '1.0.0', 'the prompt at its production label, not the latest version');
  t.equal(record.compiled_prompt, 'Hello Ada, how can I help?', 'compiled with the variables');

  const secret = { err: null, res: { OPENAI_API_KEY: 'sk-demo-not-a-real-key' } };
  t.same(JSON.parse(byKey!), secret, 'the secret by key');
  t.same(JSON.parse(byTags!), secret, 'and by tags');

  const latest = (await fetch(`${service.url}/api/prompts/${promptId}`, { headers: { authorization: `Bearer ${banner![1]}` } }).then((r) => r.json())) as { version: string; labels: Record<string, string> };
  t.equal(latest.version, '1.1.0', 'the prompt has its second version as the latest');
  t.match(latest.labels, { latest: '1.1.0', production: '1.0.0' }, 'and production on the first');

  const readme = readDoc('README.md');
  t.match(readme, /"compiled_prompt":"Hello Ada,\s+how can I help\?"/, 'the README says what the script prints');
});
