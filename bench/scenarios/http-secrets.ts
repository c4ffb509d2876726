/**
 * POST /api/vault/get-secrets by tags over HTTP (200 sealed secrets, 20 tags,
 * each request one tag: about 15 secrets opened per request), against the
 * same app's no-op route and a bare node:http server.
 */
import { SCHEMA_VERSION } from '../../src/events';
import { createSealer } from '../../src/vault/seal';
import { compareHttp } from '../http-comparison';
import { benchKeyEvent, loadedDataDir, MASTER_KEY, metadata } from '../http-harness';
import { createRandom } from '../random';
import type { Scenario } from '../scenario';
import type { BulkEvent } from '../../src/store/sqlite-bulk';

const SECRETS = 200;
const TAGS = Array.from({ length: 20 }, (_, i) => `tag-${i}`);

export const scenario: Scenario = {
  name: 'http-secrets',
  description:
    'get-secrets by tags over HTTP: 200 sealed secrets, 20 tags, one tag per request (~15 values opened per request), ' +
    'autocannon -c 64 from a separate process on the same 2 cores; vs the no-op route, the honest floor and a bare node:http server.',
  async run({ quick }) {
    const sealer = await createSealer(Buffer.from(MASTER_KEY, 'base64'));
    const random = createRandom(7);
    const events: BulkEvent[] = [benchKeyEvent()];
    for (let i = 0; i < SECRETS; i++) {
      const id = `00000000-0000-4000-9000-${String(i).padStart(12, '0')}`;
      const tags = [...new Set([random.pick(TAGS), random.pick(TAGS)])];
      const sealed = sealer.seal(id, 1, `bench-secret-value-${i}-${'x'.repeat(40)}`);
      events.push({ stream: `secret-${id}`, type: 'SecretCreated', data: { id, key: `BENCH_SECRET_${i}`, tags, version: 1, sealed: { ...sealed } }, metadata: { ...metadata(), schema: SCHEMA_VERSION } });
    }
    events.push({ stream: 'vault-keyring', type: 'MasterKeyEnrolled', data: { canary: { ...sealer.makeCanary() } }, metadata: metadata() });
    sealer.dispose();
    const data = loadedDataDir(events);
    try {
      const bodies = Array.from({ length: 200 }, () => JSON.stringify({ tags: [random.pick(TAGS)] }));
      return await compareHttp({ label: 'get-secrets by tag', dataDir: data.dir, path: '/api/vault/get-secrets', bodies, quick });
    } finally {
      data.remove();
    }
  },
};
