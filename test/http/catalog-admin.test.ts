/** Black-box: contexts and prompts admin API (contract §3, 1.3). */
import t from 'tap';
import { withNode } from '../support/with-node';
import { forCells } from '../support/matrix';

forCells(t, 'catalog-admin', (t, cell) => {
  const live = withNode(t, { cell });
  const admin = live.admin;

  t.test('contexts: create, read, patch with If-Match, delete', async (t) => {
    const created = await admin.post('/api/contexts', {
      name: 'support tone', content: 'Be kind.', tags: ['tone', 'tone'], meta_properties: { owner: 'cx', weight: 2 },
    });
    t.equal(created.status, 201);
    t.match(created.json, {
      name: 'support tone', content: 'Be kind.', description: '', tags: ['tone'], status: 'ACTIVE',
      meta_properties: { owner: 'cx', weight: 2 }, revision: '0', created_by: 'env-admin',
    });
    const id = created.json.id as string;
    t.same((await admin.get(`/api/contexts/${id}`)).json, created.json);
    const patched = await admin.patch(`/api/contexts/${id}`, { status: 'INACTIVE' }, { headers: { 'if-match': '0' } });
    t.equal(patched.status, 200);
    t.equal(patched.json.status, 'INACTIVE');
    t.equal(patched.json.content, 'Be kind.');
    t.equal((await admin.patch(`/api/contexts/${id}`, { status: 'ACTIVE' }, { headers: { 'if-match': '0' } })).status, 409);
    t.ok((await admin.get('/api/contexts')).json.contexts.some((c: { id: string }) => c.id === id));
    t.equal((await admin.delete(`/api/contexts/${id}`)).status, 204);
    t.equal((await admin.get(`/api/contexts/${id}`)).status, 404);
  });

  t.test('contexts: bad input names the member', async (t) => {
    const cases: [unknown, RegExp][] = [
      [{ content: 'x' }, /name is required/],
      [{ name: 'x' }, /content is required/],
      [{ name: 'x', content: 'y', tags: 'a' }, /tags must be an array/],
      [{ name: 'x', content: 'y', tags: [1] }, /tags\[0\] must be a string/],
      [{ name: 'x', content: 'y', meta_properties: [] }, /meta_properties must be a JSON object/],
      [{ name: 'x', content: 'y', status: 'DRAFT' }, /status must be one of ACTIVE, INACTIVE/],
      [{ name: '', content: 'y' }, /name must not be empty/],
    ];
    for (const [body, message] of cases) {
      const answer = await admin.post('/api/contexts', body);
      t.equal(answer.status, 400);
      t.match(answer.json.err, message);
    }
  });

  t.test('a __proto__ key in meta_properties stays plain data', async (t) => {
    const raw = '{"name":"p","content":"c","meta_properties":{"__proto__":{"polluted":true},"ok":1}}';
    const created = await admin.post('/api/contexts', undefined, { raw, headers: { 'content-type': 'application/json' } });
    t.equal(created.status, 201);
    t.same(Object.keys(created.json.meta_properties).sort(), ['__proto__', 'ok']);
    t.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  t.test('prompts: versions default to 1.0.0, then the next minor; order is semantic', async (t) => {
    const created = await admin.post('/api/prompts', { name: 'greeting', prompt: 'Hello {{name}}' });
    t.equal(created.status, 201);
    t.match(created.json, { name: 'greeting', version: '1.0.0', prompt: 'Hello {{name}}', variables: ['name'], status: 'ACTIVE' });
    const id = created.json.id as string;
    const next = await admin.post(`/api/prompts/${id}/versions`, { prompt: 'Hi {{name}}' });
    t.equal(next.status, 201);
    t.equal(next.json.version, '1.1.0');
    const v19 = await admin.post(`/api/prompts/${id}/versions`, { prompt: 'v1.9', version: '1.9.0' });
    t.equal(v19.json.version, '1.9.0');
    const v110 = await admin.post(`/api/prompts/${id}/versions`, { prompt: 'v1.10', version: '1.10.0' });
    t.equal(v110.status, 201);
    t.equal(v110.json.version, '1.10.0', '1.10.0 is later than 1.9.0');
    const older = await admin.post(`/api/prompts/${id}/versions`, { prompt: 'old', version: '1.2.0' });
    t.equal(older.status, 409);
    t.match(older.json.err, /greater than the latest version 1\.10\.0/);
    const latest = await admin.get(`/api/prompts/${id}`);
    t.equal(latest.json.version, '1.10.0');
    t.same(latest.json.versions.map((v: { version: string }) => v.version), ['1.0.0', '1.1.0', '1.9.0', '1.10.0']);
    const first = await admin.get(`/api/prompts/${id}?version=1.0.0`);
    t.equal(first.json.prompt, 'Hello {{name}}');
    t.equal((await admin.get(`/api/prompts/${id}?version=7.0.0`)).status, 404);
    t.equal((await admin.get(`/api/prompts/${id}?version=banana`)).status, 400);
    t.ok((await admin.get('/api/prompts')).json.prompts.some((p: { id: string }) => p.id === id));
    t.equal((await admin.delete(`/api/prompts/${id}`)).status, 204);
    t.equal((await admin.get(`/api/prompts/${id}`)).status, 404);
  });

  t.test('prompts: invalid templates and versions are rejected when written', async (t) => {
    const broken = await admin.post('/api/prompts', { name: 'broken', prompt: 'Hello {{#if x}}' });
    t.equal(broken.status, 400);
    t.match(broken.json.err, /prompt is not a valid Handlebars template/);
    const badVersion = await admin.post('/api/prompts', { name: 'v', prompt: 'x', version: '1.0' });
    t.equal(badVersion.status, 400);
    t.match(badVersion.json.err, /version must be MAJOR\.MINOR\.PATCH/);
    const created = await admin.post('/api/prompts', { name: 'p', prompt: 'x', tags: ['a'] });
    const patched = await admin.patch(`/api/prompts/${created.json.id}`, { status: 'INACTIVE', tags: ['b'] });
    t.equal(patched.status, 200);
    t.match(patched.json, { status: 'INACTIVE', tags: ['b'], prompt: 'x' });
    const patchTemplate = await admin.patch(`/api/prompts/${created.json.id}`, { prompt: 'y' });
    t.equal(patchTemplate.status, 400);
    t.match(patchTemplate.json.err, /versions/);
  });
});
