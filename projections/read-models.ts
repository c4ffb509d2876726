/**
 * The registry of read models: for each member of the catalog state, how to
 * copy it, how it goes into and comes out of a snapshot, and what of it the
 * digest covers. Snapshots (src/snapshots/snapshot.ts), time travel
 * (src/audit/time-travel.ts) and the digest (src/audit/digest.ts) iterate this
 * registry instead of each listing the state's shape; its type demands one
 * entry per model, so a new read model cannot be left out of any of them.
 */
import type { ApiKeysState } from './api-keys';
import type { ChangeControlState, ChangeRequestRecord, TestCaseSetRecord } from './change-control';
import type { ContextsState } from './contexts';
import type { CatalogState, ReadModels } from './index';
import { runSteps, type Steps } from '../src/base/steps';
import { copyMap, copySet } from './copy-steps';
import { initialPrompts, promptsFrom, promptVersion, type PromptsState } from './prompts';
import type { PromptMessage } from '../src/events';
import type { ApiKeyRecord, ContextRecord, PromptRecord, PromptVersion, RuleRecord, SecretRecord } from './records';
import type { JsonLines } from './json-lines';
import { copyRules, LazyRuleRecords } from './lazy-rules';
import type { RulesState } from './rules';
import type { VaultState } from './secrets';

/** A model's members of a snapshot body: plain JSON, bigints as decimal strings. */
export type SnapshotMembers = { readonly [member: string]: unknown };
/** What the digest counts of a model, by name. */
export type DigestCounts = { readonly [name: string]: number };

interface ReadModelKind<M> {
  /**
   * A copy that folds may change without touching `model`, in steps (copy-steps.ts); records are shared
   * (folds replace them, never mutate).
   */
  copy(model: M): Steps<M>;
  /** The entries `copy` copies: what a copy costs beyond the records it shares (time travel's memory bound). */
  size(model: M): number;
  toSnapshot(model: M): SnapshotMembers;
  /**
   * A snapshot member whose items `fromSnapshot` takes as JsonLines, unparsed
   * (the reader keeps them as text: src/snapshots/snapshot.ts); `toSnapshot` may give
   * its items as RawJson, written as they are.
   */
  readonly linesMember?: string;
  /** Rebuilds the model from a snapshot body (indexes and compiled templates included). */
  fromSnapshot(body: SnapshotMembers): M;
  /** The model's member of the digest's canonical form: its name there, its value, its counts. */
  digest(model: M): { readonly name: string; readonly value: unknown; readonly counts: DigestCounts };
}

type Stringified<T> = { [K in keyof T]: T[K] extends bigint ? string : T[K] };

const withStrings = <T extends { revision: bigint; position?: bigint }>(record: T) => ({
  ...record,
  revision: record.revision.toString(),
  ...(record.position !== undefined ? { position: record.position.toString() } : {}),
});
const withBigints = <T extends { revision: string; position?: string }>(record: T) => ({
  ...record,
  revision: BigInt(record.revision),
  ...(record.position !== undefined ? { position: BigInt(record.position) } : {}),
});

/**
 * A model's records as the digest lists them: sorted by id, each as `item`
 * gives it. Left unsorted and unprojected here: at 1M rules sorting and
 * projecting them at once held the node ~1.9 s, so the digest
 * (src/audit/digest.ts) can sort in slices and project one record at a
 * time as it hashes.
 */
export class DigestList<R extends { readonly id: string } = { readonly id: string }> {
  constructor(
    readonly records: readonly R[],
    readonly item: (record: R) => unknown,
  ) {}
}

const digestList = <R extends { readonly id: string }>(records: Iterable<R>, item: (record: R) => unknown): DigestList<R> =>
  new DigestList([...records], item);

const provenance = (r: { created_by: string; created_at: string; updated_at: string; revision: bigint }) => ({
  created_by: r.created_by, created_at: r.created_at, updated_at: r.updated_at, revision: r.revision,
});

type SnapshotPrompt = Stringified<Omit<PromptRecord, 'versions' | 'labels'>> & {
  labels?: PromptRecord['labels'];
  versions: (Omit<PromptVersion, 'compiled' | 'messages'> & { messages?: PromptMessage[] })[];
};

/**
 * In state order; snapshot bodies and digest counts list members in this
 * order. The digest leaves out log positions (an import into another store
 * renumbers them) and the vault's erasures still to do (work in progress, not
 * a fact of the log); see src/audit/digest.ts.
 */
const READ_MODELS: { readonly [K in keyof ReadModels]: ReadModelKind<ReadModels[K]> } = {
  rules: {
    copy: copyRules,
    size: (rules) => rules.size,
    toSnapshot: (rules) => ({ rules: rules instanceof LazyRuleRecords ? [...rules.snapshotItems(withStrings)] : [...rules.values()].map(withStrings) }),
    linesMember: 'rules',
    fromSnapshot(body) {
      // The snapshot reader hands this member's items over as lines, decoded on first read (lazy-rules.ts).
      const decode = (text: string) => withBigints(JSON.parse(text) as Stringified<RuleRecord>) as RuleRecord;
      if (!Array.isArray(body.rules)) return LazyRuleRecords.restore(body.rules as JsonLines, decode);
      const rules: RulesState = new Map();
      for (const rule of body.rules as Stringified<RuleRecord>[]) rules.set(rule.id, withBigints(rule) as RuleRecord);
      return rules;
    },
    digest: (rules) => ({
      name: 'rules',
      value: digestList(rules.values(), (r) => ({
        id: r.id, name: r.name, description: r.description, status: r.status, group_operator: r.group_operator,
        condition_groups: r.condition_groups, entities: r.entities,
        // Only where present: a log without splits keeps the digest it had before them.
        ...(r.key === undefined ? {} : { key: r.key }), ...(r.splits === undefined ? {} : { splits: r.splits }), ...provenance(r),
      })),
      counts: { rules: rules.size },
    }),
  },
  contexts: {
    copy: (contexts: ContextsState) => copyMap(contexts),
    size: (contexts) => contexts.size,
    toSnapshot: (contexts) => ({ contexts: [...contexts.values()].map(withStrings) }),
    fromSnapshot(body) {
      const contexts: ContextsState = new Map();
      for (const context of body.contexts as Stringified<ContextRecord>[]) contexts.set(context.id, withBigints(context) as ContextRecord);
      return contexts;
    },
    digest: (contexts) => ({
      name: 'contexts',
      value: digestList(contexts.values(), (c) => ({
        id: c.id, name: c.name, description: c.description, content: c.content, tags: c.tags,
        meta_properties: c.meta_properties, status: c.status, ...provenance(c),
      })),
      counts: { contexts: contexts.size },
    }),
  },
  prompts: {
    copy: (prompts: PromptsState) => promptsFrom(prompts),
    size: (prompts) => prompts.size + prompts.idsByName.size,
    toSnapshot: (prompts) => ({
      prompts: [...prompts.values()].map((prompt) => ({
        ...withStrings(prompt),
        versions: prompt.versions.map(({ compiled: _compiled, messages, ...version }) => ({
          ...version,
          ...(messages !== undefined ? { messages: messages.map(({ role, content }) => ({ role, content })) } : {}),
        })),
      })),
    }),
    fromSnapshot(body) {
      const records: [string, PromptRecord][] = [];
      for (const prompt of body.prompts as SnapshotPrompt[]) {
        // A snapshot written before labels has none.
        const versions = prompt.versions.map((version) => promptVersion(version.version, version, { metadata: { actor: version.created_by, at: version.created_at } }));
        records.push([prompt.id, { ...(withBigints(prompt) as Omit<PromptRecord, 'versions'>), labels: prompt.labels ?? {}, versions }]);
      }
      return initialPrompts(records);
    },
    digest(prompts) {
      let versions = 0;
      for (const prompt of prompts.values()) versions += prompt.versions.length;
      return {
        name: 'prompts',
        // Members added later (labels, a version's messages and config) only when present: a log without them digests as before.
        value: digestList(prompts.values(), (p) => ({
          id: p.id, name: p.name, tags: p.tags, meta_properties: p.meta_properties, status: p.status, ...provenance(p),
          ...(Object.keys(p.labels).length > 0 ? { labels: p.labels } : {}),
          versions: p.versions.map((v) => ({
            version: v.version, template: v.template, created_by: v.created_by, created_at: v.created_at,
            ...(v.messages !== undefined ? { messages: v.messages.map(({ role, content }) => ({ role, content })) } : {}),
            ...(v.config !== undefined ? { config: v.config } : {}),
          })),
        })),
        counts: { prompts: prompts.size, prompt_versions: versions },
      };
    },
  },
  vault: {
    *copy(vault: VaultState) {
      const secrets = yield* copyMap(vault.secrets);
      const idsByKey = yield* copyMap(vault.idsByKey);
      const erasurePending = yield* copySet(vault.erasurePending);
      return { secrets, idsByKey, erasurePending, keyring: vault.keyring };
    },
    size: (vault) => vault.secrets.size + vault.idsByKey.size + vault.erasurePending.size,
    toSnapshot: (vault) => ({
      secrets: [...vault.secrets.values()].map(withStrings),
      erasure_pending: [...vault.erasurePending],
      canary: vault.keyring.canary ?? null,
    }),
    fromSnapshot(body) {
      const vault: VaultState = { secrets: new Map(), idsByKey: new Map(), erasurePending: new Set(), keyring: { canary: undefined } };
      for (const secret of body.secrets as Stringified<SecretRecord>[]) {
        vault.secrets.set(secret.id, withBigints(secret) as SecretRecord);
        vault.idsByKey.set(secret.key, secret.id);
      }
      for (const id of body.erasure_pending as string[]) vault.erasurePending.add(id);
      vault.keyring = { canary: (body.canary as VaultState['keyring']['canary'] | null) ?? undefined };
      return vault;
    },
    digest: (vault) => ({
      name: 'vault',
      value: {
        secrets: digestList(vault.secrets.values(), (s) => ({
          id: s.id, key: s.key, tags: s.tags, version: s.version, value_version: s.value_version, sealed: s.sealed, ...provenance(s),
        })),
        keyring: vault.keyring.canary ?? null,
      },
      counts: { secrets: vault.secrets.size },
    }),
  },
  apiKeys: {
    *copy(apiKeys: ApiKeysState) {
      const byId = yield* copyMap(apiKeys.byId);
      const byHash = yield* copyMap(apiKeys.byHash);
      return { byId, byHash };
    },
    size: (apiKeys) => apiKeys.byId.size + apiKeys.byHash.size,
    toSnapshot: (apiKeys) => ({ api_keys: [...apiKeys.byId.values()].map(withStrings) }),
    fromSnapshot(body) {
      const apiKeys: ApiKeysState = { byId: new Map(), byHash: new Map() };
      for (const key of body.api_keys as Stringified<ApiKeyRecord>[]) {
        const record = withBigints(key) as ApiKeyRecord;
        apiKeys.byId.set(record.id, record);
        apiKeys.byHash.set(record.key_hash, record);
      }
      return apiKeys;
    },
    digest: (apiKeys) => ({
      name: 'api_keys',
      value: digestList(apiKeys.byId.values(), (k) => ({
        id: k.id, name: k.name, scopes: k.scopes, secret_tags: k.secret_tags, key_hash: k.key_hash,
        created_by: k.created_by, created_at: k.created_at, revision: k.revision,
      })),
      counts: { api_keys: apiKeys.byId.size },
    }),
  },
  changeControl: {
    *copy(control: ChangeControlState) {
      const protections = yield* copyMap(control.protections);
      const requests = yield* copyMap(control.requests);
      return { protections, requests, protectionsRevision: control.protectionsRevision, breakGlassUses: control.breakGlassUses, testCases: control.testCases };
    },
    size: (control) => control.protections.size + control.requests.size,
    toSnapshot: (control) => ({
      protections: [...control.protections.entries()].map(([key, record]) => ({ key, ...record })),
      change_requests: [...control.requests.values()].map(withStrings),
      protections_revision: control.protectionsRevision?.toString() ?? null,
      break_glass_uses: control.breakGlassUses,
      test_cases: control.testCases === undefined ? null : withStrings(control.testCases),
    }),
    fromSnapshot(body) {
      const protections: ChangeControlState['protections'] = new Map();
      for (const { key, ...record } of body.protections as ({ key: string } & ProtectionRecordJson)[]) protections.set(key, record);
      const requests: ChangeControlState['requests'] = new Map();
      for (const request of body.change_requests as Stringified<ChangeRequestRecord>[]) requests.set(request.id, withBigints(request) as ChangeRequestRecord);
      const revision = body.protections_revision as string | null;
      // A format 5 snapshot written before test-case sets has no member: there was no set then (ADR 0067), so the format stays.
      const cases = (body.test_cases ?? null) as Stringified<TestCaseSetRecord> | null;
      return {
        protections, requests, protectionsRevision: revision === null ? undefined : BigInt(revision), breakGlassUses: body.break_glass_uses as number,
        testCases: cases === null ? undefined : withBigints(cases) as TestCaseSetRecord,
      };
    },
    // A log without change control leaves the digest as it was before it (digestMembers skips an undefined value).
    digest: (control) => ({
      name: 'change_control',
      value: control.protections.size === 0 && control.requests.size === 0 && control.breakGlassUses === 0 && control.testCases === undefined ? undefined : {
        protections: [...control.protections.keys()].sort(),
        change_requests: digestList(control.requests.values(), (r) => ({ ...r, revision: r.revision, position: undefined })),
        break_glass_uses: control.breakGlassUses,
        // Absent without a set, so a digest of a log without one is what it was before sets existed.
        ...(control.testCases === undefined ? {} : { test_cases: { ...control.testCases, revision: control.testCases.revision } }),
      },
      counts: control.requests.size === 0 ? ({} as DigestCounts) : { change_requests: control.requests.size },
    }),
  },
};

type ProtectionRecordJson = ChangeControlState['protections'] extends Map<string, infer R> ? R : never;

const MODEL_KEYS = Object.keys(READ_MODELS) as (keyof ReadModels)[];

/** Builds a catalog state model by model, in registry order. */
function buildState(position: bigint | undefined, model: <K extends keyof ReadModels>(key: K, kind: ReadModelKind<ReadModels[K]>) => ReadModels[K]): CatalogState {
  const models: Partial<ReadModels> = {};
  const put = <K extends keyof ReadModels>(key: K) => {
    models[key] = model(key, READ_MODELS[key]);
  };
  for (const key of MODEL_KEYS) put(key);
  return { position, ...(models as ReadModels) };
}

/** Applies `visit` to each model's kind, in registry order. */
function eachKind<T>(visit: <K extends keyof ReadModels>(kind: ReadModelKind<ReadModels[K]>) => T): T[] {
  return MODEL_KEYS.map((key) => visit(READ_MODELS[key]));
}

/** Applies `visit` to each model of `state`, in registry order. */
function eachModel<T>(state: CatalogState, visit: <K extends keyof ReadModels>(model: ReadModels[K], kind: ReadModelKind<ReadModels[K]>) => T): T[] {
  const one = <K extends keyof ReadModels>(key: K) => visit(state[key], READ_MODELS[key]);
  return MODEL_KEYS.map(one);
}

/** A state that folds may advance without touching `state` (time travel's snapshots). */
export function copyState(state: CatalogState): CatalogState {
  return runSteps(copyStateSteps(state));
}

/** `copyState(state)` in steps (copy-steps.ts), while nothing changes `state`. */
export function* copyStateSteps(state: CatalogState): Steps<CatalogState> {
  const models: Partial<ReadModels> = {};
  function* copy<K extends keyof ReadModels>(key: K): Steps<void> {
    models[key] = yield* READ_MODELS[key].copy(state[key]);
  }
  for (const key of MODEL_KEYS) yield* copy(key);
  return { position: state.position, ...(models as ReadModels) };
}

/** The snapshot members whose items a reader hands over as JsonLines (each model's `linesMember`). */
export const LINES_MEMBERS: ReadonlySet<string> = new Set(eachKind((kind) => kind.linesMember).filter((name) => name !== undefined));

/** The entries `copyState(state)` copies, over every model. */
export function copySize(state: CatalogState): number {
  let entries = 0;
  for (const size of eachModel(state, (model, kind) => kind.size(model))) entries += size;
  return entries;
}

/** Every model's snapshot members, in registry order. */
export function snapshotMembers(state: CatalogState): SnapshotMembers {
  return Object.assign({}, ...eachModel(state, (model, kind) => kind.toSnapshot(model)));
}

/** The state a snapshot body holds. */
export function restoreState(position: bigint, body: SnapshotMembers): CatalogState {
  return buildState(position, (_key, kind) => kind.fromSnapshot(body));
}

/** Every model's member of the digest's canonical form, and its counts. */
export function digestMembers(state: CatalogState): { readonly canonical: { readonly [name: string]: unknown }; readonly counts: DigestCounts } {
  const canonical: { [name: string]: unknown } = {};
  const counts: { [name: string]: number } = {};
  for (const { name, value, counts: modelCounts } of eachModel(state, (model, kind) => kind.digest(model))) {
    if (value !== undefined) canonical[name] = value;
    Object.assign(counts, modelCounts);
  }
  return { canonical, counts };
}
