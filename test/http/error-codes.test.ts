/**
 * Black-box: every error body carries a stable machine-readable `code` beside
 * `err` (issue 17 item 6), on both HTTP paths. The walk takes every operation
 * of the OpenAPI document and provokes its errors: no key, a key without the
 * scope, a stranger origin, a malformed body, one over the limit, an unknown
 * id; get-secrets answers them 200 with `code` beside `err`. Each code must
 * be one of the documented list and match the answer's status.
 */
import t, { type Test } from 'tap';
import { ERROR_CODES, ERROR_STATUS, type ErrorCode } from '../../src/base/errors';
import { openApiDocument, type HttpMethod } from '../../src/http/openapi';
import { call, type Answer } from '../support/http';
import { forCells } from '../support/matrix';
import { withNode } from '../support/with-node';

const METHODS: readonly HttpMethod[] = ['get', 'post', 'put', 'patch', 'delete'];
const GET_SECRETS = '/api/vault/get-secrets';
/** Answered 200 with `{err, code, res: null}` (contract §1.2, and OpenLIT's route like it). */
const ALWAYS_OK = [GET_SECRETS, '/api/prompt/get-compiled'];
/** Routes of the `evaluate` scope (a stream opened with it would never end the walk). */
const EVALUATE_SCOPED = ['/api/rule-engine/evaluate', '/api/rule-engine/stream', '/api/prompt/get-compiled', '/ofrep/v1/evaluate/flags/{key}', '/ofrep/v1/evaluate/flags'];
/** OFREP's routes answer in OFREP's error shape, `{errorCode, errorDetails}` (docs/openfeature.md#errors): what each of ours is there. */
const OFREP_CODES: Partial<Record<ErrorCode, string>> = { unauthorized: 'GENERAL', forbidden: 'GENERAL', bad_request: 'PARSE_ERROR', payload_too_large: 'GENERAL' };
const LIMIT = 4096;

/** A body valid for the route, so that only the unknown id is wrong. */
function unknownIdBody(template: string): string {
  if (template.endsWith('/versions')) return '{"prompt":"x"}';
  if (template.includes('/labels/')) return '{"version":"1.0.0"}';
  if (template === '/api/change-requests/{id}') return '{"title":"x"}';
  if (template.endsWith('/comments')) return '{"text":"x"}';
  if (template.endsWith('/reject')) return '{"reason":"x"}';
  return '{}';
}

forCells(t, 'error-codes', (t, cell) => {
  // The import route has a body limit of its own: the same here, so its 413 is walked too.
  const live = withNode(t, { cell, env: { RULEVAULT_MAX_BODY_BYTES: String(LIMIT), RULEVAULT_IMPORT_MAX_BYTES: String(LIMIT), RULEVAULT_ALLOWED_CORS_ORIGINS: 'https://app.example.com' } });

  /** Checks one error answer: `code` is documented and is the code of its status (get-secrets: 200, `res: null`). */
  function checkCode(t: Test, label: string, path: string, answer: Answer, expected: ErrorCode): void {
    if (path.startsWith('/ofrep/')) {
      t.equal(answer.status, ERROR_STATUS[expected], `${label}: status`);
      t.match(answer.json, { errorCode: OFREP_CODES[expected], errorDetails: String }, `${label}: OFREP's shape and code`);
      return;
    }
    const json = answer.json as { err?: unknown; code?: unknown; res?: unknown } | undefined;
    t.type(json?.err, 'string', `${label}: err`);
    t.ok(ERROR_CODES.includes(json?.code as ErrorCode), `${label}: code ${String(json?.code)} is documented`);
    t.equal(json?.code, expected, `${label}: code`);
    t.ok((openApiDocument.components.schemas.Error!.properties!.code!.enum ?? []).includes(json?.code as string), `${label}: in the OpenAPI enum`);
    if (ALWAYS_OK.includes(path)) {
      t.equal(answer.status, 200, `${label}: answered 200, like get-secrets`);
      t.equal(json?.res, null, `${label}: res null`);
    } else {
      t.equal(answer.status, ERROR_STATUS[expected], `${label}: status matches the code`);
    }
  }

  t.test('every operation\'s errors carry a documented code', async (t) => {
    const admin = live.node.adminKey;
    const evaluate = (await live.admin.post('/api/api-keys', { name: 'ev', scopes: ['evaluate'] })).json.key as string;
    const reader = (await live.admin.post('/api/api-keys', { name: 'rd', scopes: ['secrets:read'] })).json.key as string;
    const approver = (await live.admin.post('/api/api-keys', { name: 'ap', scopes: ['approve'] })).json.key as string;
    /** Routes of the `approve` scope alone: an admin key lacks it. */
    const approving = (template: string) => template.endsWith('/approve') || template.endsWith('/reject');
    let operations = 0;
    for (const [template, item] of Object.entries(openApiDocument.paths)) {
      for (const method of METHODS) {
        const operation = item[method];
        if (operation === undefined || operation.security?.length === 0) continue;
        operations++;
        const path = template.replace(/\{(\w+)\}/g, 'no-such-id');
        const send = (key: string | undefined, extra: { raw?: string; headers?: Record<string, string> } = {}) =>
          call(live.url, method.toUpperCase(), path, { ...(key === undefined ? {} : { key }), ...extra });
        const label = `${method.toUpperCase()} ${template}`;
        checkCode(t, `${label} without a key`, template, await send(undefined), 'unauthorized');
        checkCode(t, `${label} with an unknown key`, template, await send('rv_not-a-key'), 'unauthorized');
        const other = EVALUATE_SCOPED.includes(template) ? reader : evaluate;
        // whoami answers any valid key: it has no scope to lack.
        if (template !== '/api/whoami') checkCode(t, `${label} without the scope`, template, await send(other), 'forbidden');
        if (template.startsWith('/api/')) {
          const stranger = await send(admin, { headers: { origin: 'https://evil.example' } });
          t.equal(stranger.status, 403, `${label} from a stranger origin: 403`);
          t.same(stranger.json, { err: 'Origin not allowed', code: 'forbidden' }, `${label} from a stranger origin: code`);
        }
        const key = EVALUATE_SCOPED.includes(template) ? evaluate : template === GET_SECRETS ? reader : approving(template) ? approver : admin;
        if (method === 'post' || method === 'put' || method === 'patch') {
          checkCode(t, `${label} with a malformed body`, template, await send(key, { raw: '{"name":', headers: { 'content-type': 'application/json' } }), 'bad_request');
          checkCode(t, `${label} with a body over the limit`, template, await send(key, { raw: JSON.stringify({ name: 'x'.repeat(LIMIT) }) }), 'payload_too_large');
        }
        if (template.includes('{id}')) checkCode(t, `${label} of an unknown id`, template, await send(key, method === 'get' || method === 'delete' ? {} : { raw: unknownIdBody(template) }), 'not_found');
      }
    }
    t.ok(operations > 25, `every operation walked (${operations})`);
  });

  t.test('conflicts, unknown routes and a bad query have codes too', async (t) => {
    await live.admin.post('/api/vault/secrets', { key: 'DUP', value: 'v' });
    checkCode(t, 'a duplicate secret key', '', await live.admin.post('/api/vault/secrets', { key: 'DUP', value: 'w' }), 'conflict');
    checkCode(t, 'an unknown route', '', await live.admin.get('/api/nothing-here'), 'not_found');
    checkCode(t, 'a bad list query', '', await live.admin.get('/api/rule-engine/rules?limit=0'), 'bad_request');
    checkCode(t, 'evaluate by GET', '', await live.admin.get('/api/rule-engine/evaluate'), 'not_found');
    checkCode(t, 'get-secrets by GET', GET_SECRETS, await live.clientFor('x').get(GET_SECRETS), 'not_found');
  });

  t.test('a success of get-secrets stays exactly {err: null, res}', async (t) => {
    const reader = (await live.admin.post('/api/api-keys', { name: 'rd2', scopes: ['secrets:read'] })).json.key as string;
    const answer = await live.clientFor(reader).post(GET_SECRETS, { key: 'DUP' });
    t.same(answer.json, { err: null, res: { DUP: 'v' } });
  });
});
