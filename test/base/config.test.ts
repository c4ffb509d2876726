/** Configuration: defaults, and every bad setting named in the error (contract §7). */
import path from 'node:path';
import t from 'tap';
import { ConfigError, DEFAULTS, loadConfig } from '../../src/base/config';
import { removeDir, tempDir, testEnv } from '../support/node';
import { freePort, runService } from '../support/process';

t.test('defaults', async (t) => {
  const config = loadConfig({});
  t.equal(config.port, 3000);
  t.equal(config.host, '127.0.0.1');
  t.equal(config.dataDir, './data');
  t.equal(config.eventStore, 'sqlite:./data/events.db');
  t.same(config.corsOrigins, []);
  t.same(config.limits, DEFAULTS.limits);
  t.equal(config.auditCheckpoints, 512);
  t.equal(loadConfig({ RULEVAULT_AUDIT_CHECKPOINTS: '128' }).auditCheckpoints, 128);
  t.equal(config.auditHeldRecords, 8_000_000);
  t.equal(loadConfig({ RULEVAULT_AUDIT_HELD_RECORDS: '250000' }).auditHeldRecords, 250_000);
  t.throws(() => loadConfig({ RULEVAULT_AUDIT_HELD_RECORDS: '-1' }), /RULEVAULT_AUDIT_HELD_RECORDS/);
  t.equal(config.answerBatch, 64);
  t.equal(loadConfig({ RULEVAULT_ANSWER_BATCH: '0' }).answerBatch, 0, '0: each answer written at once');
  t.ok(Object.isFrozen(config));
});

t.test('bad settings stop start-up naming the variable', async (t) => {
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ PORT: 'eighty' }, 'PORT', /whole number/],
    [{ PORT: '70000' }, 'PORT', /between 0 and 65535/],
    [{ RULEVAULT_EVENTSTORE: 'postgres://x' }, 'RULEVAULT_EVENTSTORE', /sqlite:<path> or an EventStoreDB/],
    [{ RULEVAULT_EVENTSTORE: 'sqlite:' }, 'RULEVAULT_EVENTSTORE', /file path/],
    [{ RULEVAULT_ALLOWED_CORS_ORIGINS: '*' }, 'RULEVAULT_ALLOWED_CORS_ORIGINS', /"\*" is not allowed/],
    [{ RULEVAULT_ALLOWED_CORS_ORIGINS: 'https://ok.example.com, app.example.com' }, 'RULEVAULT_ALLOWED_CORS_ORIGINS', /not a complete origin/],
    [{ RULEVAULT_ALLOWED_ORIGINS: 'https://app.example.com/' }, 'RULEVAULT_ALLOWED_ORIGINS', /did you mean https:\/\/app\.example\.com/],
    [{ RULEVAULT_ALLOWED_ORIGINS: 'https://app.example.com/path' }, 'RULEVAULT_ALLOWED_ORIGINS', /not a complete origin/],
    [{ RULEVAULT_PUBLIC_URL: 'not a url' }, 'RULEVAULT_PUBLIC_URL', /not an http\(s\) URL/],
    [{ RULEVAULT_ADMIN_KEY: 'short' }, 'RULEVAULT_ADMIN_KEY', /at least 32 characters/],
    [{ RULEVAULT_MAX_FIELDS: '0' }, 'RULEVAULT_MAX_FIELDS', /between/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /must be one of fatal, error, warn, info, debug, trace, silent/],
    [{ RULEVAULT_SNAPSHOT_ENGINE_IMAGE: 'periodic' }, 'RULEVAULT_SNAPSHOT_ENGINE_IMAGE', /must be one of shutdown, every, got "periodic"/],
    [{ RULEVAULT_METRICS_TOKEN: 'short' }, 'RULEVAULT_METRICS_TOKEN', /at least 32 characters/],
    [{ RULEVAULT_REQUEST_TIMEOUT_MS: '5' }, 'RULEVAULT_REQUEST_TIMEOUT_MS', /between 100 and/],
    [{ RULEVAULT_AUDIT_CHECKPOINTS: '1' }, 'RULEVAULT_AUDIT_CHECKPOINTS', /between 2 and/],
    [{ RULEVAULT_ANSWER_BATCH: '70000' }, 'RULEVAULT_ANSWER_BATCH', /between 0 and 65536/],
    [{ RULEVAULT_ANSWER_BATCH: 'many' }, 'RULEVAULT_ANSWER_BATCH', /whole number/],
    // Issue 14.9: mistakes that used to start a service that silently never matched, or locked everyone out.
    [{ RULEVAULT_ALLOWED_CORS_ORIGINS: 'https://*.example.com' }, 'RULEVAULT_ALLOWED_CORS_ORIGINS', /"https:\/\/\*\.example\.com": wildcards are not supported/],
    [{ RULEVAULT_ALLOWED_ORIGINS: 'https://ok.example.com,http://*:3000' }, 'RULEVAULT_ALLOWED_ORIGINS', /wildcards are not supported/],
    [{ RULEVAULT_ALLOWED_ORIGINS: 'https://app_(x).example.com' }, 'RULEVAULT_ALLOWED_ORIGINS', /not a complete origin/],
    [{ RULEVAULT_PUBLIC_URL: 'https://*.example.com' }, 'RULEVAULT_PUBLIC_URL', /not an http\(s\) URL/],
    [{ RULEVAULT_ADMIN_KEY: 'correct horse battery staple and more words' }, 'RULEVAULT_ADMIN_KEY', /cannot be sent as a bearer token/],
    [{ RULEVAULT_ADMIN_KEY: 'k'.repeat(40) + '\u00e9' }, 'RULEVAULT_ADMIN_KEY', /cannot be sent as a bearer token/],
    [{ RULEVAULT_METRICS_TOKEN: 'm'.repeat(20) + '\t' + 'm'.repeat(20) }, 'RULEVAULT_METRICS_TOKEN', /cannot be sent as a bearer token/],
  ];
  for (const [env, variable, message] of cases) {
    t.throws(() => loadConfig(env), ConfigError, `${variable} rejected`);
    try {
      loadConfig(env);
    } catch (error) {
      t.equal((error as ConfigError).variable, variable);
      t.match((error as Error).message, message);
      t.match((error as Error).message, new RegExp(`^${variable}:`));
    }
  }
});

t.test('CORS origins merge both variables and the public URL', async (t) => {
  const config = loadConfig({
    RULEVAULT_ALLOWED_CORS_ORIGINS: 'https://a.example.com,http://localhost:5173',
    RULEVAULT_ALLOWED_ORIGINS: 'https://b.example.com, https://a.example.com',
    RULEVAULT_PUBLIC_URL: 'https://vault.example.com/some/path',
  });
  t.same([...config.corsOrigins].sort(), ['http://localhost:5173', 'https://a.example.com', 'https://b.example.com', 'https://vault.example.com']);
});

t.test('the admin key is kept only as a hash', async (t) => {
  const key = 'k'.repeat(40);
  const config = loadConfig({ RULEVAULT_ADMIN_KEY: key });
  t.match(config.adminKeyHash, /^[0-9a-f]{64}$/);
  t.notOk(JSON.stringify(config).includes(key));
});

t.test('bearer tokens from the environment: any RFC 6750 b64token of 32+ characters', async (t) => {
  for (const key of ['A'.repeat(32), 'abc-._~+/'.repeat(4), Buffer.alloc(32, 9).toString('base64'), 'x'.repeat(40) + '==']) {
    t.match(loadConfig({ RULEVAULT_ADMIN_KEY: key }).adminKeyHash, /^[0-9a-f]{64}$/, key);
  }
});

t.test('origins that are real hosts pass', async (t) => {
  const origins = 'https://app.example.com,http://localhost:5173,http://127.0.0.1:8080,http://[::1]:3000,https://my_host.internal';
  t.same(loadConfig({ RULEVAULT_ALLOWED_CORS_ORIGINS: origins }).corsOrigins, origins.split(','));
});

t.test('unknown RULEVAULT_* variables are listed with the closest known name', async (t) => {
  const config = loadConfig({
    RULEVAULT_DATADIR: '/srv/data',
    RULEVAULT_ALLOWED_CORS_ORIGIN: 'https://app.example.com',
    RULEVAULT_DATA_DIR: '/srv/rv',
    RULEVAULT_URL: 'http://client.example',
    RULEVAULT_API_KEY: 'client key',
    RULEVAULT_TEST_BACKEND: 'esdb',
    PATH: '/usr/bin',
  });
  t.same(config.unknownVariables, [
    { variable: 'RULEVAULT_ALLOWED_CORS_ORIGIN', closest: 'RULEVAULT_ALLOWED_CORS_ORIGINS' },
    { variable: 'RULEVAULT_DATADIR', closest: 'RULEVAULT_DATA_DIR' },
  ], 'the client library\'s and the test suite\'s variables are not typos');
  t.same(loadConfig({ RULEVAULT_SNAPSHOT_INTERVAL: '0' }).unknownVariables, [{ variable: 'RULEVAULT_SNAPSHOT_INTERVAL', closest: 'RULEVAULT_SNAPSHOT_INTERVAL_MS' }]);
  t.same(loadConfig({}).unknownVariables, []);
});

t.test('the service refuses those settings at start, and warns about a mistyped variable', async (t) => {
  const dir = tempDir();
  t.teardown(() => removeDir(dir));
  const base = testEnv(dir, { PORT: String(await freePort()) });
  const refusals: [Record<string, string>, RegExp][] = [
    [{ RULEVAULT_ALLOWED_CORS_ORIGINS: 'https://*.example.com' }, /^RuleVault cannot start: RULEVAULT_ALLOWED_CORS_ORIGINS: "https:\/\/\*\.example\.com": wildcards are not supported/],
    [{ RULEVAULT_ADMIN_KEY: 'my very long admin pass phrase with spaces' }, /^RuleVault cannot start: RULEVAULT_ADMIN_KEY: cannot be sent as a bearer token/],
  ];
  for (const [env, message] of refusals) {
    const run = await runService({ ...base, ...env }, /"msg":"ready"/);
    t.equal(run.code, 1);
    t.match(run.stderr, message);
  }

  const typo = await runService({ ...base, RULEVAULT_DATADIR: path.join(dir, 'elsewhere') }, /"msg":"ready"/);
  const warning = typo.stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((line) => line.variable !== undefined);
  t.match(warning, {
    level: 'warn',
    msg: 'RULEVAULT_DATADIR is not a RuleVault setting and is ignored; did you mean RULEVAULT_DATA_DIR?',
    variable: 'RULEVAULT_DATADIR',
    did_you_mean: 'RULEVAULT_DATA_DIR',
  });
  t.match(typo.stdout, /"msg":"ready"/, 'a warning, not a refusal');
});
