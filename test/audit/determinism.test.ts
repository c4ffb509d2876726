/**
 * Determinism of the audit trail on a random history of thousands of events
 * (on the lead seed of test/support/seeds.ts): the live digest equals an offline
 * replay's, equals a replay of the log exported and imported into a fresh
 * store (positions renumbered, revisions kept), and audit evaluate at past
 * points answers exactly what evaluate answered live at that point.
 */
import t from 'tap';
import { digestState } from '../../src/audit/digest';
import { exportLine, importLog, readWholeLog, replayLog } from '../../src/audit/log-transfer';
import { createAuditService } from '../../src/audit/service';
import { createReadModel } from '../../src/read-model/read-model';
import { openSqliteStore } from '../../src/store/sqlite';
import { commandNodeFor, LIMITS, randomHistory } from './support/history';
import path from 'node:path';
import { seededRandom, shuffled } from '../engine/random-rules';
import { leadSeed, replayHint } from '../support/seeds';

// One history of 3000 steps (its guards need the length), so one seed: the run's first.
const seed = leadSeed();
t.comment(replayHint(seed));

t.test('live, replayed and imported read models agree; audit evaluate equals live answers', async (t) => {
  const { node, clock, dir } = await commandNodeFor(t);
  const samples = await randomHistory(node, clock, seed, 3000, 25);
  const live = digestState(node.readModel.state);
  t.ok(live.counts.rules > 10 && live.counts.prompt_versions > 10 && live.counts.secrets > 0, `a varied history: ${JSON.stringify(live.counts)}`);

  const replayed = await replayLog(node.store);
  t.ok(replayed.events >= 2000, `${replayed.events} events in the log`);
  t.same(digestState(replayed.state), live, 'offline replay digest equals the live digest');

  const lines: string[] = [];
  for await (const event of readWholeLog(node.store)) lines.push(exportLine(event));
  t.notOk(lines.some((line) => line.includes('plaintext-')), 'no secret value leaves sealed');
  const target = openSqliteStore(path.join(dir, 'imported.db'));
  t.teardown(() => target.close());
  // Renumbered positions: a store that already used some positions starts elsewhere.
  const imported = await importLog(target, (async function* () { yield* lines; })());
  t.equal(imported.events, lines.length);
  const reimported = digestState((await replayLog(target)).state);
  t.equal(reimported.sha256, live.sha256, 'export -> import -> replay gives the same digest');
  t.same(reimported.counts, live.counts);
  await t.rejects(importLog(target, (async function* () { yield* lines; })()), /not empty/, 'import refuses a non-empty store');

  // A fresh audit service each round, so both cold and warm paths are checked.
  const audit = createAuditService({ store: node.store, readModel: createReadModel(), limits: LIMITS, clock: Date.now, timeTravel: { checkpointEvery: 64, maxCheckpoints: 8, maxPoints: 4 } });
  let compared = 0;
  const order = shuffled(seededRandom(seed ^ 0x0ddba11), samples.map((_, i) => i));
  for (const i of order) {
    const sample = samples[i]!;
    const byPosition = await audit.evaluateAsOf({ ...sample.body, as_of: sample.position });
    const { as_of, ...answer } = byPosition;
    if (JSON.stringify(answer) !== JSON.stringify(sample.answer)) {
      t.same(answer, sample.answer, `${replayHint(seed)}, as of position ${sample.position}: ${JSON.stringify(sample.body)}`);
      return;
    }
    if (BigInt(as_of.position!) > BigInt(sample.position)) {
      t.fail(`as_of.position ${as_of.position} is after the position asked, ${sample.position}`);
      return;
    }
    const byTime = await audit.evaluateAsOf({ ...sample.body, as_of: sample.at });
    const { as_of: timePoint, ...timeAnswer } = byTime;
    if (JSON.stringify(timeAnswer) !== JSON.stringify(sample.answer)) {
      t.same(timeAnswer, sample.answer, `${replayHint(seed)}, as of time ${sample.at}: ${JSON.stringify(sample.body)}`);
      return;
    }
    if (timePoint.at === null || timePoint.at > sample.at) {
      t.fail(`as_of.at ${timePoint.at} is not a time at or before ${sample.at}`);
      return;
    }
    compared += 1;
  }
  t.equal(compared, samples.length, `${compared} past answers reproduced by position and by time`);
  t.ok(samples.some((s) => (s.answer as { matchingRuleIds: string[] }).matchingRuleIds.length > 0), 'some samples match rules');
});
