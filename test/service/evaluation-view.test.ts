/**
 * The change stream's two ends (src/service/evaluation-view.ts) on a real
 * read model: after every event of seeded sequences of rule, context and
 * prompt events, a client state folded from the `patch` format and one folded
 * from the `records` format both equal the view restored afresh from a
 * snapshot at that point; and a change carries what changed: a prompt's new
 * version, not all its versions (issue 62 item 6).
 */
import t from 'tap';
import { createReadModel, type ReadModel } from '../../src/read-model/read-model';
import type { EvaluationState } from '../../src/service/evaluate';
import {
  applyStreamChange, createEvaluationView, restoreEvaluationState, StreamFoldError, type EvaluationView, type StreamSnapshot,
} from '../../src/service/evaluation-view';
import { DEFAULTS } from '../../src/base/config';
import type { RecordedEvent } from '../../src/store/port';
import { pick, seededRandom, type Random } from '../engine/random-rules';
import { replayHint, testSeeds } from '../support/seeds';

/** A log written by hand: positions in order, a revision per stream. */
function createLog(readModel: ReadModel) {
  let position = 0n;
  const revisions = new Map<string, bigint>();
  return (stream: string, type: string, data: Record<string, unknown>): RecordedEvent => {
    position += 1n;
    const revision = revisions.has(stream) ? revisions.get(stream)! + 1n : 0n;
    revisions.set(stream, revision);
    const event: RecordedEvent = {
      id: `event-${position}`, stream, type, revision, position, data: data as RecordedEvent['data'],
      metadata: { actor: 'test', at: new Date(Date.UTC(2026, 10, 30) + Number(position) * 1000).toISOString(), request_id: `req-${position}`, schema: 1 },
    };
    readModel.apply(event);
    return event;
  };
}

const snapshotOf = (view: EvaluationView, position: bigint | undefined): StreamSnapshot =>
  JSON.parse([...view.snapshotJson(position, DEFAULTS.limits)].join('')) as StreamSnapshot;

/** A state as comparable data: records as JSON (no compiled templates), and the prompt name index. */
function comparable(state: EvaluationState): unknown {
  const plain = (records: Iterable<[string, unknown]>) => [...records]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, record]) => JSON.parse(JSON.stringify(record, (key, value: unknown) => (key === 'compiled' ? undefined : typeof value === 'bigint' ? value.toString() : value))));
  return { rules: plain(state.rules), contexts: plain(state.contexts), prompts: plain(state.prompts), names: [...state.prompts.idsByName].sort() };
}

const condition = (value: string) => [{ condition_operator: 'AND', conditions: [{ field: 'n', operator: 'equals', value, data_type: 'string' }] }];

/** One seeded event of the catalog (ids from small pools, so entities are linked, changed, unlinked and come back). */
function step(random: Random, append: ReturnType<typeof createLog>, readModel: ReadModel, n: number): RecordedEvent | undefined {
  const state = readModel.state;
  const contextId = `context-${Math.floor(random() * 4)}`;
  const promptId = `prompt-${Math.floor(random() * 3)}`;
  const ruleId = `rule-${Math.floor(random() * 5)}`;
  const status = () => (random() < 0.8 ? 'ACTIVE' : 'INACTIVE');
  const links = () => [
    ...(random() < 0.7 ? [{ entity_type: 'context', entity_id: `context-${Math.floor(random() * 4)}` }] : []),
    ...(random() < 0.7 ? [{ entity_type: 'prompt', entity_id: `prompt-${Math.floor(random() * 3)}` }] : []),
  ];
  const kind = pick(random, ['rule', 'rule', 'context', 'context', 'context', 'prompt', 'version', 'version', 'version', 'label', 'prompt-update', 'delete']);
  switch (kind) {
    case 'rule':
      if (state.rules.has(ruleId)) return append(`rule-${ruleId}`, 'RuleUpdated', { id: ruleId, changes: random() < 0.5 ? { status: status() } : { entities: links() } });
      return append(`rule-${ruleId}`, 'RuleCreated', { id: ruleId, name: ruleId, description: '', status: status(), group_operator: 'AND', condition_groups: condition(String(n)), entities: links() });
      return;
    case 'context': {
      if (!state.contexts.has(contextId)) {
        return append(`context-${contextId}`, 'ContextCreated', { id: contextId, name: contextId, description: '', content: `content ${n}`, tags: [], meta_properties: {}, status: status() });
      }
      const changes = pick(random, [{ content: `content ${n}` }, { name: `renamed ${n}` }, { tags: [`t${n}`] }, { status: status() }, { content: `both ${n}`, description: `d ${n}` }]);
      return append(`context-${contextId}`, 'ContextUpdated', { id: contextId, changes });
    }
    case 'prompt':
      if (state.prompts.has(promptId)) return undefined;
      return append(`prompt-${promptId}`, 'PromptCreated', { id: promptId, version: '1.0.0', template: `Hello {{name}} ${n}`, name: promptId, tags: [], meta_properties: {}, status: status() });
    case 'version': {
      const prompt = state.prompts.get(promptId);
      if (prompt === undefined) return undefined;
      // Versions out of order too: the fold keeps them sorted, and so must a client adding them one by one.
      const version = `${Math.floor(random() * 3)}.${Math.floor(random() * 4)}.${n}`;
      const chat = random() < 0.3;
      return append(`prompt-${promptId}`, 'PromptVersionAdded', {
        id: promptId, version, template: chat ? '' : `v${version} {{name}}`,
        ...(chat ? { messages: [{ role: 'system', content: `be ${n}` }, { role: 'user', content: '{{name}}' }] } : {}),
        ...(random() < 0.3 ? { config: { model: `m${n}`, temperature: 0.5 } } : {}),
      });
    }
    case 'label': {
      const prompt = state.prompts.get(promptId);
      if (prompt === undefined) return undefined;
      const label = pick(random, ['production', 'staging']);
      const previous = prompt.labels[label];
      if (previous !== undefined && random() < 0.4) return append(`prompt-${promptId}`, 'PromptLabelRemoved', { id: promptId, label, previous });
      return append(`prompt-${promptId}`, 'PromptLabelMoved', { id: promptId, label, version: pick(random, prompt.versions).version, previous: previous ?? null });
    }
    case 'prompt-update':
      if (!state.prompts.has(promptId)) return undefined;
      return append(`prompt-${promptId}`, 'PromptUpdated', { id: promptId, changes: random() < 0.5 ? { status: status() } : { name: `${promptId} ${n}` } });
    default: {
      const [stream, type, id] = pick(random, [['rule', 'RuleDeleted', ruleId], ['context', 'ContextDeleted', contextId], ['prompt', 'PromptDeleted', promptId]] as const);
      const held = stream === 'rule' ? state.rules.has(id) : stream === 'context' ? state.contexts.has(id) : state.prompts.has(id);
      return held && random() < 0.5 ? append(`${stream}-${id}`, type, { id }) : undefined;
    }
  }
}

t.test('both formats fold to the view a fresh snapshot shows, after every event (seeded)', async (t) => {
  const patched = { contexts: 0, prompts: 0, versions: 0, inRecords: 0 };
  for (const seed of testSeeds()) {
    const random = seededRandom(seed);
    const readModel = createReadModel();
    readModel.markCaughtUp();
    const append = createLog(readModel);
    const view = createEvaluationView(readModel.state);
    const patchClient = restoreEvaluationState(snapshotOf(view, undefined));
    const recordsClient = restoreEvaluationState(snapshotOf(view, undefined));
    for (let n = 0; n < 400; n++) {
      const event = step(random, append, readModel, n);
      if (event === undefined) continue;
      const change = view.apply(readModel.state, event);
      // Through JSON, as on the wire.
      applyStreamChange(patchClient, JSON.parse(JSON.stringify(change.patched)));
      applyStreamChange(recordsClient, JSON.parse(JSON.stringify(change.whole?.() ?? change.patched)));
      if (change.whole?.().patch !== undefined) patched.inRecords++;
      patched.contexts += change.patched.patch?.contexts?.length ?? 0;
      patched.prompts += change.patched.patch?.prompts?.length ?? 0;
      patched.versions += (change.patched.patch?.prompts ?? []).filter((p) => p.versions_added !== undefined).length;
      const expected = comparable(restoreEvaluationState(snapshotOf(createEvaluationView(readModel.state), readModel.position)));
      const atPatch = comparable(patchClient);
      const atRecords = comparable(recordsClient);
      if (JSON.stringify(atPatch) !== JSON.stringify(expected)) t.same(atPatch, expected, `${replayHint(seed)}, event ${n} (${event.type}): patch format`);
      if (JSON.stringify(atRecords) !== JSON.stringify(expected)) t.same(atRecords, expected, `${replayHint(seed)}, event ${n} (${event.type}): records format`);
      if (JSON.stringify(atPatch) !== JSON.stringify(expected) || JSON.stringify(atRecords) !== JSON.stringify(expected)) return;
    }
  }
  t.ok(patched.contexts > 20 && patched.prompts > 20 && patched.versions > 10, `patches were folded (${JSON.stringify(patched)})`);
  t.equal(patched.inRecords, 0, 'the records format never has a patch');
});

t.test('a prompt\'s change carries its new version, not every version it has', async (t) => {
  const readModel = createReadModel();
  readModel.markCaughtUp();
  const append = createLog(readModel);
  const view = createEvaluationView(readModel.state);
  const client = restoreEvaluationState(snapshotOf(view, undefined));
  const text = (n: number) => `version ${n}: ${'x'.repeat(4096)} {{name}}`;
  const fold = (event: RecordedEvent) => {
    const change = view.apply(readModel.state, event);
    applyStreamChange(client, JSON.parse(JSON.stringify(change.patched)));
    return { patched: JSON.stringify(change.patched).length, whole: JSON.stringify(change.whole?.() ?? change.patched).length };
  };
  fold(append('prompt-p', 'PromptCreated', { id: 'p', version: '1.0.0', template: text(0), name: 'p', tags: [], meta_properties: {}, status: 'ACTIVE' }));
  fold(append('rule-r', 'RuleCreated', { id: 'r', name: 'r', description: '', status: 'ACTIVE', group_operator: 'AND', condition_groups: condition('1'), entities: [{ entity_type: 'prompt', entity_id: 'p' }] }));
  let largest = 0;
  let last = { patched: 0, whole: 0 };
  for (let n = 1; n <= 120; n++) {
    last = fold(append('prompt-p', 'PromptVersionAdded', { id: 'p', version: `1.${n}.0`, template: text(n) }));
    largest = Math.max(largest, last.patched);
  }
  t.ok(largest < 4096 + 1024, `each change carries one version: at most ${largest} bytes for ~4 KiB of template`);
  t.ok(last.whole > 120 * 4096, `the records format still carries them all (${last.whole} bytes), for clients that ask for it`);
  t.equal(client.prompts.get('p')!.versions.length, 121, 'and the client holds every version');
  t.same(client.prompts.get('p')!.versions.map((v) => v.version), readModel.state.prompts.get('p')!.versions.map((v) => v.version));
});

t.test('a patch of an entity the client does not hold is refused before anything is folded', async (t) => {
  const state = restoreEvaluationState({ position: null, limits: DEFAULTS.limits, rules: [], contexts: [], prompts: [] });
  const rule = { id: 'r', name: 'r', status: 'ACTIVE', group_operator: 'AND', condition_groups: condition('1'), entities: [] };
  t.throws(() => applyStreamChange(state, { position: '9', upsert: { rules: [rule] }, patch: { contexts: [{ id: 'c', content: 'x' }] } }), StreamFoldError);
  t.equal(state.rules.size, 0, 'not even the rule of the same change');
});
