/** Graceful shutdown: SIGTERM lets an in-flight request finish, then the process exits 0. */
import t from 'tap';
import { client } from '../support/http';
import { removeDir, tempDir, testEnv } from '../support/node';
import { exited, freePort, spawnService } from '../support/process';

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  t.test(`${signal}: in-flight requests finish, new connections are refused, exit 0`, async (t) => {
    const dir = tempDir();
    t.teardown(() => removeDir(dir));
    const env = testEnv(dir);
    const service = await spawnService(env, await freePort());
    const admin = client(service.url, env.RULEVAULT_ADMIN_KEY);
    // A write in flight when the signal arrives: it must still be answered.
    const inFlight = admin.post('/api/contexts', { name: 'late', content: 'x'.repeat(200_000) });
    await new Promise((resolve) => setTimeout(resolve, 5));
    service.child.kill(signal);
    const answer = await inFlight;
    t.equal(answer.status, 201, 'the in-flight write was answered');
    const code = await exited(service.child);
    t.equal(code, 0);
    t.match(service.output(), /"msg":"shutting down"/);
    await t.rejects(fetch(`${service.url}/healthz`), 'the port is closed');
  });
}
