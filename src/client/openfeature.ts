/**
 * RuleVaultProvider (docs/client.md#openfeature): an OpenFeature server
 * provider for `@openfeature/server-sdk` over the local evaluator, so each
 * evaluation is in-process. The package's entry `@rulevault/client/openfeature`
 * (ADR 0060): the SDK is an optional peer dependency, imported here only, so
 * the plain client loads without it.
 *
 * A flag's answer is flags.ts's, the function the OFREP endpoints answer
 * with, over evaluate's answers from the rule set held: the details
 * ({value, variant, reason, flagMetadata, errorCode}) are what an OFREP
 * provider makes of the endpoints' answer at the same position. An answer
 * with no value (DISABLED, or DEFAULT for a string or object flag) gives the
 * caller's default with the reason (OFREP ADR 0006).
 *
 * Events: READY at the first rule set (initialize resolves); ERROR when the
 * first connection fails (initialize rejects; READY follows once a rule set
 * comes); CONFIGURATION_CHANGED after each change, naming the flags it
 * touched; STALE when the stream has said nothing for `staleAfterMs`, READY
 * when it speaks again.
 */
import {
  FlagNotFoundError, GeneralError, InvalidContextError, OpenFeatureEventEmitter, ParseError, ProviderEvents, ProviderNotReadyError,
  TargetingKeyMissingError, TypeMismatchError,
  type EvaluationContext, type FlagMetadata, type JsonValue, type OpenFeatureError, type Provider, type ResolutionDetails,
} from '@openfeature/server-sdk';
import type { RuleRecord } from '../../projections';
import type { Limits } from '../base/limits';
import type { EntityType } from '../events';
import type { EvaluateResponse } from '../service/evaluate';
import type { StreamChange } from '../service/evaluation-view';
import { flagsOf, isFlagFailure, lookupFlag, parseFlagContext, resolveFlag, type FlagErrorCode, type FlagRef } from '../service/flags';
import { followRuleSet, type LocalEvaluator, type LocalEvaluatorOptions, type RuleTouch } from './local';
import { timerSettingError } from './transport';

export interface RuleVaultProviderOptions extends LocalEvaluatorOptions {
  /**
   * STALE once the stream has said nothing whole (no event, no heartbeat)
   * for this many ms; READY again when it speaks (default 30,000: two of the
   * server's 15 s heartbeats missed, before the evaluator's idle timeout
   * reconnects at 45 s). Evaluations keep answering from the rule set held.
   */
  readonly staleAfterMs?: number;
  /** How long initialize waits for the first rule set, in ms (default 10,000). */
  readonly readyTimeoutMs?: number;
}

type ValueType = 'boolean' | 'string' | 'number' | 'object';

/** The SDK's error for each of flags.ts's codes: the ones an OFREP provider throws for the same answer. */
const ERRORS: Record<FlagErrorCode, new (message?: string) => OpenFeatureError> = {
  FLAG_NOT_FOUND: FlagNotFoundError,
  PARSE_ERROR: ParseError,
  INVALID_CONTEXT: InvalidContextError,
  TARGETING_KEY_MISSING: TargetingKeyMissingError,
  GENERAL: GeneralError,
};

export class RuleVaultProvider implements Provider {
  readonly metadata = { name: 'RuleVault' } as const;
  readonly runsOn = 'server' as const;
  readonly events = new OpenFeatureEventEmitter();

  readonly #options: RuleVaultProviderOptions;
  readonly #staleAfterMs: number;
  #evaluator: LocalEvaluator | undefined;
  /** The rule of each key in the rule set held: kept by each change, read by each evaluation. */
  #byKey = new Map<string, RuleRecord>();
  #limits: Limits | undefined;
  #stale = false;
  #watch: ReturnType<typeof setInterval> | undefined;
  /** Set while initialize waits: a first connection's failure rejects it. */
  #initFailed: ((error: Error) => void) | undefined;
  /** initialize gave up (ERROR): the first rule set then says READY itself. */
  #owesReady = false;

  constructor(options: RuleVaultProviderOptions = {}) {
    this.#options = options;
    this.#staleAfterMs = options.staleAfterMs ?? 30_000;
    const bad = timerSettingError('staleAfterMs', this.#staleAfterMs) ?? timerSettingError('readyTimeoutMs', options.readyTimeoutMs ?? 10_000);
    if (bad !== undefined) throw new RangeError(bad);
  }

  /** Starts following the stream; resolves at the first rule set, rejects if the first connection fails or none comes in time. */
  async initialize(): Promise<void> {
    if (this.#evaluator !== undefined) return;
    const evaluator = followRuleSet(this.#options, {
      snapshot: (rules, previous, limits) => this.#onSnapshot(rules, previous, limits),
      change: (rules, touched, change) => this.#onChange(touched, change),
      failed: (error) => this.#initFailed?.(error),
    });
    this.#evaluator = evaluator;
    this.#watch = setInterval(() => this.#checkStaleness(), Math.max(1, Math.min(this.#staleAfterMs / 4, 1_000)));
    this.#watch.unref?.();
    try {
      await new Promise<void>((resolve, reject) => {
        this.#initFailed = (error) => reject(new GeneralError(`RuleVault: ${error.message}`));
        evaluator.ready(this.#options.readyTimeoutMs ?? 10_000).then(resolve, (error: Error) => reject(new GeneralError(`RuleVault: ${error.message}`)));
      });
    } catch (error) {
      this.#owesReady = evaluator.position === undefined;
      throw error;
    } finally {
      this.#initFailed = undefined;
    }
  }

  async onClose(): Promise<void> {
    clearInterval(this.#watch);
    this.#evaluator?.close();
  }

  /**
   * Resolves once the rule set held reaches `position` (an admin write's
   * RuleVault-Position): the next evaluation sees that write. The SDK keeps
   * no cache of its own, so nothing else can answer from before it.
   */
  waitFor(position: bigint | string, timeoutMs?: number): Promise<void> {
    if (this.#evaluator === undefined) return Promise.reject(new ProviderNotReadyError('RuleVaultProvider is not initialized: pass it to OpenFeature.setProviderAndWait first'));
    return this.#evaluator.waitFor(position, timeoutMs);
  }

  /** The log position of the rule set held, or undefined before the first. */
  get position(): bigint | undefined {
    return this.#evaluator?.position;
  }

  async resolveBooleanEvaluation(flagKey: string, defaultValue: boolean, context: EvaluationContext): Promise<ResolutionDetails<boolean>> {
    return this.#resolve(flagKey, defaultValue, context, 'boolean');
  }

  async resolveStringEvaluation(flagKey: string, defaultValue: string, context: EvaluationContext): Promise<ResolutionDetails<string>> {
    return this.#resolve(flagKey, defaultValue, context, 'string');
  }

  async resolveNumberEvaluation(flagKey: string, defaultValue: number, context: EvaluationContext): Promise<ResolutionDetails<number>> {
    return this.#resolve(flagKey, defaultValue, context, 'number');
  }

  async resolveObjectEvaluation<T extends JsonValue>(flagKey: string, defaultValue: T, context: EvaluationContext): Promise<ResolutionDetails<T>> {
    return this.#resolve(flagKey, defaultValue, context, 'object');
  }

  #resolve<T>(flagKey: string, defaultValue: T, context: EvaluationContext, type: ValueType): ResolutionDetails<T> {
    const evaluator = this.#evaluator;
    const limits = this.#limits;
    if (evaluator === undefined || limits === undefined) throw new ProviderNotReadyError('RuleVault: no rule set yet');
    // The context first, then the flag: the order the OFREP route reads its body and its key in (src/http/ofrep.ts).
    const parsed = parseFlagContext({ context: jsonOf(context) }, limits, flagKey);
    if ('errorCode' in parsed) throw new ERRORS[parsed.errorCode](parsed.errorDetails);
    const ref = lookupFlag(flagKey, (key) => this.#byKey.get(key));
    if ('errorCode' in ref) throw new ERRORS[ref.errorCode](ref.errorDetails);
    const position = evaluator.position;
    const answers = new Map<string, EvaluateResponse>();
    const answer = resolveFlag(ref, parsed, (entityType: EntityType, withData: boolean) => {
      const memo = `${entityType}:${withData}`;
      let found = answers.get(memo);
      if (found === undefined) {
        const result = evaluator.evaluate({
          entity_type: entityType,
          fields: parsed.fields,
          include_entity_data: withData,
          ...(withData && Object.keys(parsed.variables).length > 0 ? { entity_inputs: { variables: parsed.variables } } : {}),
        });
        if (result.err !== null) throw result.status === 400 ? new InvalidContextError(result.err) : new GeneralError(result.err);
        found = result;
        answers.set(memo, found);
      }
      return found;
    }, position);
    if (isFlagFailure(answer)) throw new ERRORS[answer.errorCode](answer.errorDetails);
    const flagMetadata: FlagMetadata = { ...answer.metadata };
    if (answer.value === undefined) return { value: defaultValue, reason: answer.reason, flagMetadata };
    // As an OFREP provider checks an answer: the value's JavaScript type against the default's.
    if (typeof answer.value !== typeof defaultValue) {
      throw new TypeMismatchError(`flag ${JSON.stringify(flagKey)} is ${describeType(ref)}, asked for as ${type === 'object' ? 'an object' : `a ${type}`}`);
    }
    return { value: answer.value as T, variant: answer.variant, reason: answer.reason, flagMetadata };
  }

  #onSnapshot(rules: ReadonlyMap<string, RuleRecord>, previous: ReadonlyMap<string, RuleRecord> | undefined, limits: Limits): void {
    const byKey = new Map<string, RuleRecord>();
    for (const rule of rules.values()) if (rule.key !== undefined) byKey.set(rule.key, rule);
    const before = this.#byKey;
    this.#byKey = byKey;
    this.#limits = limits;
    if (previous === undefined) {
      if (this.#owesReady) this.#ready();
      return;
    }
    // A snapshot replacing a rule set (a resync, or a reconnect past what the stream keeps): the flags whose rule differs.
    const changed = new Set<string>();
    for (const [key, rule] of byKey) if (before.get(key)?.revision?.toString() !== rule.revision.toString()) addFlags(changed, rule);
    for (const [key, rule] of before) if (!byKey.has(key)) addFlags(changed, rule);
    this.#configurationChanged(changed);
  }

  #onChange(touched: readonly RuleTouch[], change: StreamChange): void {
    const changed = new Set<string>();
    for (const { before, after } of touched) {
      if (before?.key !== undefined && this.#byKey.get(before.key) === before) this.#byKey.delete(before.key);
      if (after?.key !== undefined) this.#byKey.set(after.key, after);
      addFlags(changed, before);
      addFlags(changed, after);
    }
    // A linked context or prompt changed: the object flags of the keyed rules linking it answer differently.
    const entities = changedEntities(change);
    if (entities.size > 0) {
      for (const rule of this.#byKey.values()) {
        for (const ref of flagsOf(rule)) {
          if (ref.type === 'object' && rule.entities.some((link) => link.entity_type === ref.entityType && entities.has(`${link.entity_type}:${link.entity_id}`))) changed.add(ref.key);
        }
      }
    }
    if (this.#stale) this.#ready();
    if (changed.size > 0) this.#configurationChanged(changed);
  }

  #configurationChanged(changed: ReadonlySet<string>): void {
    this.events.emit(ProviderEvents.ConfigurationChanged, { providerName: this.metadata.name, flagsChanged: [...changed].sort() });
  }

  #ready(): void {
    this.#stale = false;
    this.#owesReady = false;
    this.events.emit(ProviderEvents.Ready, { providerName: this.metadata.name });
  }

  #checkStaleness(): void {
    const evaluator = this.#evaluator;
    if (evaluator === undefined || evaluator.position === undefined || this.#owesReady) return;
    const silent = evaluator.staleness;
    if (!this.#stale && silent > this.#staleAfterMs) {
      this.#stale = true;
      const why = evaluator.lastError === undefined ? '' : `: ${evaluator.lastError.message}`;
      this.events.emit(ProviderEvents.Stale, { providerName: this.metadata.name, message: `RuleVault's stream has said nothing for ${silent} ms${why}` });
    } else if (this.#stale && silent <= this.#staleAfterMs) {
      this.#ready();
    }
  }
}

function addFlags(into: Set<string>, rule: RuleRecord | undefined): void {
  if (rule !== undefined) for (const ref of flagsOf(rule)) into.add(ref.key);
}

/** `context:<id>` and `prompt:<id>` of each entity a change upserts, patches or removes. */
function changedEntities(change: StreamChange): Set<string> {
  const keys = new Set<string>();
  for (const [type, kind] of [['context', 'contexts'], ['prompt', 'prompts']] as const) {
    for (const record of [...(change.upsert?.[kind] ?? []), ...(change.patch?.[kind] ?? [])]) keys.add(`${type}:${record.id}`);
    for (const id of change.remove?.[kind] ?? []) keys.add(`${type}:${id}`);
  }
  return keys;
}

function describeType(ref: FlagRef): string {
  return ref.type === 'object' ? 'an object flag' : `a ${ref.type} flag`;
}

/**
 * The context as the JSON an OFREP provider sends: a Date as its ISO string,
 * undefined members left out. The same object when it holds neither, as
 * nearly every context does.
 */
function jsonOf(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = value.map((item) => (item === undefined ? null : jsonOf(item)));
    return items.every((item, i) => item === value[i]) ? value : items;
  }
  let copy: Record<string, unknown> | undefined;
  for (const [member, item] of Object.entries(value)) {
    const json = item === undefined ? undefined : jsonOf(item);
    if (json === item && item !== undefined) continue;
    copy ??= { ...value };
    if (json === undefined) delete copy[member];
    else copy[member] = json;
  }
  return copy ?? value;
}
