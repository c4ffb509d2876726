/** Black-box: one JSON log line per request, nothing secret in logs, and /metrics (issue: Operations). */
import t from 'tap';
import { createLogger } from '../../src/log';
import { call } from '../support/http';
import { withNode } from '../support/with-node';
import { forCells } from '../support/matrix';

forCells(t, 'observability', (t, cell) => {
  const METRICS_TOKEN = 'metrics-token-' + 'x'.repeat(40);
  const lines: string[] = [];

  const live = withNode(t, { cell, env: { RULEVAULT_METRICS_TOKEN: METRICS_TOKEN }, logger: createLogger((line) => lines.push(line)) });

  t.test('one log line per request with route, status, duration, request id and key id, never secrets', async (t) => {
    const admin = live.admin;
    const key = await admin.post('/api/api-keys', { name: 'both', scopes: ['evaluate', 'secrets:read'] });
    await admin.post('/api/vault/secrets', { key: 'LOGGED_NOT', value: 'value-that-must-not-be-logged' });
    const asKey = live.clientFor(key.json.key);
    lines.length = 0;
    await asKey.post('/api/rule-engine/evaluate', { entity_type: 'context', fields: { a: 1 } }, { headers: { 'x-request-id': 'trace-abc' } });
    await asKey.post('/api/vault/get-secrets', { key: 'LOGGED_NOT' });
    await asKey.get(`/api/rule-engine/rules/${'0'.repeat(8)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const records = lines.map((line) => JSON.parse(line));
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
  });
});
