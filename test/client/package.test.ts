/**
 * @rulevault/client as a user gets it: built and `npm pack`ed from this
 * repository, installed offline into an empty folder, then used from `import`
 * and `require` by real Node processes against a real node, with nothing of
 * the server in the installed tree; docs/client.md's TypeScript examples
 * type-check under `strict` against the installed package's declarations.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { buildClientPackage, packClientPackage, PACKAGE_NAME, ROOT } from '../../scripts/client-package';
import { removeDir, tempDir } from '../support/temp';
import { childEnv, freePort } from '../support/process';
import { withNode } from '../support/with-node';

const run = promisify(execFile);
const SERVER_PACKAGES = ['better-sqlite3', '@grpc/grpc-js', '@eventstore/db-client', 'express', 'libsodium-wrappers', 'pino', 'prom-client', 'handlebars', 'swagger-ui-express', 'cors'];

/** An empty project in `dir` with the tarball installed, offline (the package has no dependencies to fetch). */
async function installPacked(dir: string, packed: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: path.basename(dir), version: '1.0.0', private: true }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', packed], { cwd: dir });
}

/** tsc --strict over `files` in `dir` (no skipLibCheck); its report, '' when clean. `nodeTypes` adds @types/node for console and the like. */
async function typeCheck(dir: string, files: readonly string[], nodeTypes: boolean): Promise<string> {
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true, noEmit: true, target: 'ES2022', module: 'node16', moduleResolution: 'node16',
      ...(nodeTypes ? { typeRoots: [path.join(ROOT, 'node_modules', '@types')], types: ['node'] } : { types: [] }),
    },
    files,
  }));
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  return run(process.execPath, [tsc, '-p', dir]).then(() => '', (error: { stdout?: string }) => error.stdout ?? String(error));
}

const work = tempDir('rulevault-client-pkg-');
const consumer = path.join(work, 'consumer');
t.teardown(() => removeDir(work));

let tarball: string;
t.before(async () => {
  buildClientPackage(path.join(work, 'package'));
  tarball = packClientPackage(path.join(work, 'package'), path.join(work, 'packed'));
  await installPacked(consumer, tarball);
});

const live = withNode(t);

t.test('the packed tarball installs alone: no dependency, nothing of the server', async (t) => {
  t.match(path.basename(tarball), /^rulevault-client-\d+\.\d+\.\d+\.tgz$/);
  const modules = path.join(consumer, 'node_modules');
  t.same(readdirSync(modules).filter((name) => !name.startsWith('.')), ['@rulevault']);
  t.same(readdirSync(path.join(modules, '@rulevault')), ['client']);
  const { stdout } = await run('npm', ['ls', '--all', '--json'], { cwd: consumer });
  const tree = JSON.parse(stdout) as { dependencies: Record<string, { dependencies?: unknown }> };
  t.same(Object.keys(tree.dependencies), [PACKAGE_NAME]);
  // npm ls lists the optional peer, not installed (an empty entry), and nothing else.
  t.same(tree.dependencies[PACKAGE_NAME]!.dependencies, { '@openfeature/server-sdk': {} }, 'the package depends on nothing; its optional peer is not installed');
  const installed = path.join(modules, '@rulevault', 'client');
  const manifest = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as Record<string, unknown>;
  t.equal(manifest.dependencies, undefined);
  t.same(manifest.exports, {
    '.': { types: './types/src/client/index.d.ts', import: './index.mjs', require: './index.cjs' },
    './openfeature': { types: './types/src/client/openfeature.d.ts', import: './openfeature.mjs', require: './openfeature.cjs' },
    './package.json': './package.json',
  });
  t.same(manifest.peerDependencies, { '@openfeature/server-sdk': '^1.23.0' });
  t.same(manifest.peerDependenciesMeta, { '@openfeature/server-sdk': { optional: true } }, 'optional: the plain client installs without it');
  const loads = (code: string, name: string) => new RegExp(`(require\\(|from )["']${name.replace('/', '\\/')}["']`).test(code);
  for (const file of ['index.mjs', 'index.cjs', 'openfeature.mjs', 'openfeature.cjs']) {
    const code = readFileSync(path.join(installed, file), 'utf8');
    for (const name of SERVER_PACKAGES) t.notOk(loads(code, name), `${file} does not load ${name}`);
    t.equal(loads(code, '@openfeature/server-sdk'), file.startsWith('openfeature'), `${file}: only the openfeature entry loads the SDK, unbundled`);
    t.notMatch(code, /class OpenFeatureEventEmitter/, `${file} does not bundle the SDK`);
  }
});

t.test('import and require both work against a real node', async (t) => {
  const admin = live.admin;
  const key = (await admin.post('/api/api-keys', { name: 'pkg', scopes: ['evaluate', 'secrets:read'] })).json.key as string;
  await admin.post('/api/vault/secrets', { key: 'PKG_TOKEN', value: 'pkg-123', tags: ['pkg'] });
  await admin.post('/api/rule-engine/rules', {
    name: 'pkg rule', condition_groups: [{ conditions: [{ field: 'who', operator: 'equals', value: 'pkg' }] }],
    entities: [{ entity_type: 'evaluation', entity_id: 'eval-pkg' }],
  });
  const body = (load: string) => `${load}
(async () => {
  const secrets = await getSecrets({ tags: ['pkg'], shouldSetEnv: true });
  const answer = await evaluate({ entity_type: 'evaluation', fields: { who: 'pkg' } });
  const admin = new RuleVaultClient({ apiKey: process.env.ADMIN_KEY });
  const rules = await admin.rules.list();
  const unreachable = await getSecrets({ url: 'http://127.0.0.1:' + process.env.CLOSED_PORT + '/' });
  console.log(JSON.stringify({ secrets, env: process.env.PKG_TOKEN, answer, rules: rules.res.map((r) => r.name), unreachable: unreachable.err }));
})();
`;
  writeFileSync(path.join(consumer, 'use.mjs'), body("import { evaluate, getSecrets, RuleVaultClient } from '@rulevault/client';"));
  writeFileSync(path.join(consumer, 'use.cjs'), body("const { evaluate, getSecrets, RuleVaultClient } = require('@rulevault/client');"));
  const closed = await freePort();
  const env = childEnv({ CLOSED_PORT: String(closed), RULEVAULT_URL: `${live.url}/`, RULEVAULT_API_KEY: key, ADMIN_KEY: live.node.adminKey });
  for (const file of ['use.mjs', 'use.cjs']) {
    const { stdout } = await run(process.execPath, [file], { cwd: consumer, env });
    const seen = JSON.parse(stdout) as Record<string, unknown>;
    t.same(seen.secrets, { err: null, res: { PKG_TOKEN: 'pkg-123' } }, file);
    t.equal(seen.env, 'pkg-123', `${file}: shouldSetEnv`);
    t.match(seen.answer, { err: null, entities: [{ entity_type: 'evaluation', entity_id: 'eval-pkg' }] }, file);
    t.same(seen.rules, ['pkg rule'], `${file}: an admin helper`);
    t.equal(seen.unreachable, `RuleVault is unreachable (POST http://127.0.0.1:${closed}/api/vault/get-secrets): connect ECONNREFUSED 127.0.0.1:${closed}`, `${file}: the cause`);
  }
});

/** The ```ts blocks of the client library's page, docs/client.md. */
function documentedExamples(): string[] {
  const page = readFileSync(path.join(ROOT, 'docs', 'client.md'), 'utf8');
  return [...page.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
}

t.test('the client page\'s examples compile under strict against the installed package (ESM and CommonJS)', async (t) => {
  // The OpenFeature example imports the SDK and OpenTelemetry, which the application installs: here the repository's own.
  for (const scope of ['@openfeature', '@opentelemetry']) symlinkSync(path.join(ROOT, 'node_modules', scope), path.join(consumer, 'node_modules', scope), 'dir');
  const examples = documentedExamples();
  t.ok(examples.length >= 3, `docs/client.md has client examples (${examples.length})`);
  const dir = path.join(consumer, 'examples');
  mkdirSync(dir);
  const files = examples.map((code, index) => {
    const file = `example-${index + 1}.mts`;
    writeFileSync(path.join(dir, file), code);
    return file;
  });
  writeFileSync(path.join(dir, 'require.cts'), [
    "import { getSecrets, RuleVaultClient, type GetPromptResult, type Rule } from '@rulevault/client';",
    'const prompt: Promise<GetPromptResult> = new RuleVaultClient().getPrompt({ id: "p" });',
    'const names = (rules: Rule[]): string[] => rules.map((rule) => rule.name);',
    'void getSecrets({ key: "K" }).then((answer) => answer.err ?? Object.keys(answer.res));',
    'export { prompt, names };',
    '',
  ].join('\n'));
  const result = await typeCheck(dir, [...files, 'require.cts'], true);
  t.equal(result, '', 'tsc --strict reports nothing');
});

t.test('@rulevault/client/openfeature: RuleVaultProvider under the SDK, from import and require', async (t) => {
  // After the examples' test, which linked the SDK into the consumer as an application would install it.
  const admin = live.admin;
  const key = (await admin.post('/api/api-keys', { name: 'pkg-openfeature', scopes: ['evaluate'] })).json.key as string;
  await admin.post('/api/rule-engine/rules', { name: 'pkg flag', key: 'pkg-flag', condition_groups: [{ conditions: [{ field: 'who', operator: 'equals', value: 'pkg' }] }] });
  const body = (load: string) => `${load}
(async () => {
  const provider = new RuleVaultProvider();
  await OpenFeature.setProviderAndWait(provider);
  const details = await OpenFeature.getClient().getBooleanDetails('pkg-flag', false, { who: 'pkg' });
  await OpenFeature.close();
  console.log(JSON.stringify(details));
})();
`;
  writeFileSync(path.join(consumer, 'flag.mjs'), body("import { OpenFeature } from '@openfeature/server-sdk';\nimport { RuleVaultProvider } from '@rulevault/client/openfeature';"));
  writeFileSync(path.join(consumer, 'flag.cjs'), body("const { OpenFeature } = require('@openfeature/server-sdk');\nconst { RuleVaultProvider } = require('@rulevault/client/openfeature');"));
  const env = childEnv({ RULEVAULT_URL: live.url, RULEVAULT_API_KEY: key });
  for (const file of ['flag.mjs', 'flag.cjs']) {
    const { stdout } = await run(process.execPath, [file], { cwd: consumer, env });
    t.match(JSON.parse(stdout), { flagKey: 'pkg-flag', value: true, variant: 'on', reason: 'TARGETING_MATCH' }, file);
  }
});

t.test('once the entry exports the engine, re2js is bundled and its types carried: still no dependency, import and require work', async (t) => {
  const built = path.join(work, 'engine-package');
  const manifest = buildClientPackage(built, path.join(ROOT, 'test', 'client', 'fixtures', 'engine-entry.ts'));
  t.equal(manifest.dependencies, undefined);
  const packed = packClientPackage(built, path.join(work, 'engine-packed'));
  const dir = path.join(work, 'engine-consumer');
  await installPacked(dir, packed);
  t.same(readdirSync(path.join(dir, 'node_modules')).filter((name) => !name.startsWith('.')), ['@rulevault'], 'no re2js installed beside it');
  const rule = "{ id: 'r1', status: 'ACTIVE', group_operator: 'AND', condition_groups: [{ condition_operator: 'AND', conditions: [{ field: 'email', operator: 'regex', value: '^[a-z]+@example\\\\.com$', data_type: 'string' }] }] }";
  const body = (load: string) => `${load}
const engine = createEngine();
engine.upsert(${rule});
console.log(JSON.stringify([engine.evaluate({ email: 'ada@example.com' }), engine.evaluate({ email: 'ada@example.org' })]));
`;
  writeFileSync(path.join(dir, 'use.mjs'), body("import { createEngine } from '@rulevault/client';"));
  writeFileSync(path.join(dir, 'use.cjs'), body("const { createEngine } = require('@rulevault/client');"));
  for (const file of ['use.mjs', 'use.cjs']) {
    const { stdout } = await run(process.execPath, [file], { cwd: dir });
    t.same(JSON.parse(stdout), [['r1'], []], `${file}: a regex rule through the bundled re2js`);
  }
  // No @types at all and no skipLibCheck: every declaration file, the vendored re2js one included, must resolve.
  writeFileSync(path.join(dir, 'check.mts'), [
    "import { createEngine, RuleVaultClient, type Engine } from '@rulevault/client';",
    'const engine: Engine = createEngine();',
    'const matched: string[] = engine.evaluate({ tier: "gold" });',
    'export const used = [matched, new RuleVaultClient()];',
    '',
  ].join('\n'));
  const result = await typeCheck(dir, ['check.mts'], false);
  t.equal(result, '', 'tsc --strict reports nothing');
});
