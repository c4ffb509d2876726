/** Configuration: defaults, and every bad setting named in the error (SPEC 7). */
import t from 'tap';
import { ConfigError, DEFAULTS, loadConfig } from '../src/config';

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
    [{ RULEVAULT_METRICS_TOKEN: 'short' }, 'RULEVAULT_METRICS_TOKEN', /at least 32 characters/],
    [{ RULEVAULT_REQUEST_TIMEOUT_MS: '5' }, 'RULEVAULT_REQUEST_TIMEOUT_MS', /between 100 and/],
    [{ RULEVAULT_AUDIT_CHECKPOINTS: '1' }, 'RULEVAULT_AUDIT_CHECKPOINTS', /between 2 and/],
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
