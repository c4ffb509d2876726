/** Black-box: one JSON log line per request, nothing secret in logs, and /metrics (issue: Operations). */
import t from 'tap';
import { createLogger } from '../../src/base/log';
import { call } from '../support/http';
import { withNode } from '../support/with-node';
import { forCells } from '../support/matrix';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

forCells(t, 'observability', (t, cell) => {
  const METRICS_TOKEN = 'metrics-token-' + 'x'.repeat(40);
  const lines: string[] = [];

  const ORIGIN = 'https://app.example.com';
  const live = withNode(t, {
    cell, env: { RULEVAULT_METRICS_TOKEN: METRICS_TOKEN, RULEVAULT_ALLOWED_CORS_ORIGINS: ORIGIN }, logger: createLogger((line) => lines.push(line)),
  });

  /**
   * The parsed log lines once `count` of them match: a request's line is written when its answer
   * finishes, which the caller may see a moment after it has the answer. No deadline of its own:
   * tap's per-test timeout ends a wait for a line that never comes.
   */
  async function loggedOnce(match: (record: Record<string, unknown>) => boolean, count: number): Promise<Record<string, unknown>[]> {
    for (;;) {
      const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
      if (records.filter(match).length >= count) return records;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  t.test('one log line per request with route, status, duration, request id and key id, never secrets', async (t) => {
    const admin = live.admin;
    const key = await admin.post('/api/api-keys', { name: 'both', scopes: ['evaluate', 'secrets:read'] });
    await admin.post('/api/vault/secrets', { key: 'LOGGED_NOT', value: 'value-that-must-not-be-logged' });
    const asKey = live.clientFor(key.json.key);
    lines.length = 0;
    await asKey.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { a: 1 } }, { headers: { 'x-request-id': 'trace-abc' } });
    await asKey.post('/api/vault/get-secrets', { key: 'LOGGED_NOT' });
    await asKey.get(`/api/rule-engine/rules/${'0'.repeat(8)}`);
    const records = await loggedOnce((r) => r.request_id === 'trace-abc' || r.route === '/api/rule-engine/rules/:id', 2);
    const evaluate = records.find((r) => r.request_id === 'trace-abc');
    t.match(evaluate, {
      level: 'info', msg: 'request', method: 'POST', route: '/api/rule-engine/evaluate', status: 200,
      duration_ms: Number, key_id: key.json.id, time: /Z$/,
    });
    const forbidden = records.find((r) => r.route === '/api/rule-engine/rules/:id');
    t.match(forbidden, { status: 403, key_id: key.json.id }, 'the route pattern, not the raw path');
    const text = lines.join('\n');
    t.notOk(text.includes(key.json.key), 'no API key in the logs');
    t.notOk(text.includes(live.node.adminKey), 'no admin key in the logs');
    t.notOk(text.includes('value-that-must-not-be-logged'), 'no secret value in the logs');
    t.notOk(/authorization/i.test(text), 'no Authorization header in the logs');
  });

  t.test('an evaluate answer names one id: a minted request id is its decision id, a caller\'s is echoed beside it', async (t) => {
    const key = (await live.admin.post('/api/api-keys', { name: 'ids', scopes: ['evaluate'] })).json.key;
    const evaluate = (options: { body?: unknown; headers?: Record<string, string> }) =>
      call(live.url, 'POST', '/api/rule-engine/evaluate', { key, body: { entity_type: 'context', fields: { a: 1 } }, ...options });
    lines.length = 0;
    const minted = await evaluate({});
    t.equal(minted.status, 200);
    const decision = minted.headers.get('rulevault-decision-id');
    t.match(decision, UUID_V7, 'a decision id, version 7');
    t.equal(minted.headers.get('x-request-id'), null, 'and no second id');
    // With an Origin the policy runs first and the request id header is set early: still one id.
    const fromBrowser = await evaluate({ headers: { origin: ORIGIN } });
    t.match(fromBrowser.headers.get('rulevault-decision-id'), UUID_V7);
    t.equal(fromBrowser.headers.get('x-request-id'), null, 'one id for a browser too');
    t.match(fromBrowser.headers.get('access-control-expose-headers'), /RuleVault-Decision-Id/, 'which it may read');
    const given = await evaluate({ headers: { 'x-request-id': 'trace-ids' } });
    t.equal(given.headers.get('x-request-id'), 'trace-ids', 'a caller\'s id is echoed');
    t.match(given.headers.get('rulevault-decision-id'), UUID_V7, 'beside a decision id of its own');
    const refused = await evaluate({ body: { entity_type: 'context' } });
    t.equal(refused.status, 400);
    t.match(refused.headers.get('x-request-id'), UUID_V7, 'an answer without a decision carries a minted request id');
    t.equal(refused.headers.get('rulevault-decision-id'), null);
    const records = await loggedOnce((r) => r.route === '/api/rule-engine/evaluate', 4);
    const line = (id: string | null) => records.filter((r) => r.request_id === id).map((r) => [r.route, r.status]);
    const route = '/api/rule-engine/evaluate';
    t.same(line(decision), [[route, 200]], 'the log line\'s request id is the decision id');
    t.same(line(fromBrowser.headers.get('rulevault-decision-id')), [[route, 200]]);
    t.same(line('trace-ids'), [[route, 200]]);
    t.same(line(refused.headers.get('x-request-id')), [[route, 400]]);
  });

  t.test('/metrics needs an admin key or the metrics token', async (t) => {
    t.equal((await call(live.url, 'GET', '/metrics')).status, 401);
    const evaluator = await live.admin.post('/api/api-keys', { name: 'e', scopes: ['evaluate'] });
    t.equal((await call(live.url, 'GET', '/metrics', { key: evaluator.json.key })).status, 403);
    const byToken = await call(live.url, 'GET', '/metrics', { key: METRICS_TOKEN });
    t.equal(byToken.status, 200);
    t.match(byToken.headers.get('content-type'), /text\/plain/);
    const text = (await call(live.url, 'GET', '/metrics', { key: live.node.adminKey })).text;
    for (const name of [
      'rulevault_http_requests_total{method="POST",route="/api/rule-engine/evaluate",status="200"}',
      'rulevault_http_request_duration_seconds_bucket',
      'rulevault_evaluate_matches_count',
      'rulevault_rules_loaded',
      'rulevault_entities_loaded{kind="secret"} 1',
      'rulevault_log_position',
      'rulevault_subscription_lag_events 0',
      'rulevault_replay_duration_seconds',
      'rulevault_secret_reads_total{key_id=',
    ]) {
      t.ok(text.includes(name), `exposes ${name}`);
    }
    const gauge = (name: string): number => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1]);
    const used = gauge('rulevault_heap_used_bytes');
    const limit = gauge('rulevault_heap_limit_bytes');
    t.ok(used > 0 && used < limit, `the heap in use (${used} bytes) and its limit (${limit})`);
  });
});
