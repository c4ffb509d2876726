/**
 * Import: a batch of rules, contexts and prompts read from NDJSON or a JSON
 * array, each item checked with the same parsing and deciders as its
 * single-item route, and decided as a whole before anything is written (the
 * service appends the batch in one write). Pure: ids come from `newId`.
 *
 * An item is `{"kind": "rule" | "context" | "prompt", "id"?: <uuid>, ...the
 * create body of its route}`. A rule's link to a context or prompt names it by
 * id (an existing one, or an item earlier in the batch) or by the name of an
 * item earlier in the batch (a prompt also by an existing prompt's name).
 */
import { AppError, badRequest, conflict } from '../base/errors';
import { streams, type ContextEvent, type EntityLink, type PromptEvent, type RuleEvent } from '../events';
import type { CatalogState } from '../../projections';
import type { TemplateLimits } from '../prompts/template';
import type { Steps } from '../base/steps';
import { isCanonicalUuid, lowerCaseHint } from '../base/uuid-text';
import { decideCreateContext, parseContextCreate } from './contexts';
import { readEnum, readString, requireObject } from './input';
import { decideCreatePrompt, parsePromptCreate } from './prompts';
import { decideCreateRule, parseRuleCreate, type RuleContext } from './rules';
import { mapVariantIds } from './splits';

export const IMPORT_KINDS = ['rule', 'context', 'prompt'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];

/** One item as read: its JSON value and where it was (`line 3` of NDJSON, `item [2]` of an array). */
export interface ImportLine {
  readonly value: unknown;
  readonly where: string;
}

/** One decided item: the stream it creates and its events. */
export interface PlannedItem {
  readonly kind: ImportKind;
  readonly id: string;
  readonly name: string;
  readonly stream: string;
  readonly events: readonly (RuleEvent | ContextEvent | PromptEvent)[];
}

export interface ImportContext {
  readonly state: CatalogState;
  readonly maxRegexLength: number;
  readonly templateLimits: TemplateLimits;
  readonly newId: () => string;
  /** The id of the live rule holding a flag key, if any (src/service/flag-keys.ts); absent, only the batch's own keys are checked. */
  readonly keyHolder?: (key: string) => string | undefined;
}

/**
 * The items of an import body: a JSON array when its first character (after
 * a byte-order mark and white space) is `[`, else NDJSON (one JSON object per
 * line; blank lines are skipped). More than `maxItems` items is a 413.
 * Both are read in steps of READ_STEP items (src/base/steps.ts): 100k NDJSON lines
 * read at once held the node ~0.3 s, a 100k-item array's one `JSON.parse`
 * ~0.5 s (bench/import-stall.ts, --array).
 */
export function* readImportSteps(text: string, maxItems: number): Steps<ImportLine[]> {
  const body = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  const start = body.search(/\S/);
  if (start === -1) throw badRequest('the import is empty: send NDJSON (one item per line) or a JSON array of items');
  const lines = body[start] === '[' ? yield* readArray(body, start, maxItems) : yield* readNdjson(body, maxItems);
  if (lines.length > maxItems) throw tooManyItems(maxItems);
  if (lines.length === 0) throw badRequest('the import holds no items');
  return lines;
}

/**
 * A JSON array's items, each `JSON.parse`d on its own: an item ends at the
 * first `,` or `]` outside a string and outside brackets (itemEnd). The text
 * between items is checked to be JSON's, so the body is accepted exactly when
 * `JSON.parse` of all of it would be (test/domain/import-array.test.ts), and
 * a bad item is named by its index.
 */
function* readArray(body: string, start: number, maxItems: number): Steps<ImportLine[]> {
  const lead = jsonSpaceEnd(body, 0);
  if (lead !== start) throw notJson(`unexpected ${describeAt(body, lead)} before the array`);
  const lines: ImportLine[] = [];
  let at = start + 1;
  const first = jsonSpaceEnd(body, at);
  if (body.charCodeAt(first) === CLOSE_BRACKET) at = first + 1;
  else {
    for (;;) {
      const end = itemEnd(body, at);
      if (end === -1) throw notJson(`the array is not closed: no ] after item [${lines.length}]`);
      // Counted before parsing on: an oversized import is refused without parsing all of it.
      if (lines.length === maxItems) throw tooManyItems(maxItems);
      const index = lines.length;
      try {
        lines.push({ value: JSON.parse(body.slice(at, end)), where: `item [${index}]` });
      } catch (error) {
        throw badRequest(`item [${index}]: not valid JSON (${(error as Error).message})`);
      }
      if (lines.length % READ_STEP === 0) yield;
      at = end + 1;
      const delimiter = body.charCodeAt(end);
      if (delimiter === CLOSE_BRACKET) break;
      if (delimiter !== COMMA) throw notJson(`unexpected ${describeAt(body, end)} after item [${index}]`);
    }
  }
  const rest = jsonSpaceEnd(body, at);
  if (rest !== body.length) throw notJson(`unexpected ${describeAt(body, rest)} after the array`);
  return lines;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Where the array item starting at `from` ends: the index of the first `,`,
 * `]` or `}` outside a string and outside the item's own brackets, or -1
 * when the text ends first. (A `}` there makes the item or the text after it
 * invalid, which the caller finds.)
 */
function itemEnd(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i + 1);
      if (i === -1) return -1;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) depth += 1;
    else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      if (depth === 0) return i;
      depth -= 1;
    } else if (c === COMMA && depth === 0) return i;
  }
  return -1;
}

/** The index of the quote closing a string whose text starts at `from`, or -1: a quote after an odd run of backslashes is escaped. */
function stringEnd(text: string, from: number): number {
  for (let quote = text.indexOf('"', from); quote !== -1; quote = text.indexOf('"', quote + 1)) {
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return quote;
  }
  return -1;
}

/** The first index from `from` that is not JSON white space (space, tab, line feed, carriage return). */
function jsonSpaceEnd(text: string, from: number): number {
  let i = from;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
  }
  return i;
}

const describeAt = (text: string, at: number): string => `${JSON.stringify(text.slice(at, at + 16))} at character ${at}`;

const notJson = (detail: string): AppError => badRequest(`the import is not valid JSON: ${detail}`);

/** NDJSON lines read per step. */
const READ_STEP = 1024;

function* readNdjson(body: string, maxItems: number): Steps<ImportLine[]> {
  const lines: ImportLine[] = [];
  let from = 0;
  for (let n = 1; from <= body.length; n++) {
    let to = body.indexOf('\n', from);
    if (to === -1) to = body.length;
    const line = body.slice(from, to);
    from = to + 1;
    if (line.trim() === '') continue;
    // Counted before parsing on: an oversized import is refused without parsing all of it.
    if (lines.length === maxItems) throw tooManyItems(maxItems);
    try {
      lines.push({ value: JSON.parse(line), where: `line ${n}` });
    } catch (error) {
      throw badRequest(`line ${n}: not valid JSON (${(error as Error).message}); NDJSON needs one JSON object per line`);
    }
    if (lines.length % READ_STEP === 0) yield;
  }
  return lines;
}

function tooManyItems(maxItems: number): AppError {
  return new AppError('payload_too_large', `the import holds more than ${maxItems} items (RULEVAULT_IMPORT_MAX_ITEMS): split it into batches`);
}

/** Items decided per step: a rule item parses and compiles its conditions (tens of µs; 20k took ~0.3 s). */
const DECIDE_STEP = 256;

/**
 * Decides every item in order against the catalog plus the items before it.
 * The first item that its single-item route would refuse stops the import:
 * the error (same code) names the item's line or index, and nothing is decided.
 * In steps (src/base/steps.ts), for a caller that gives the event loop turns
 * between them: 20k items decided at once held the node ~0.3 s. What changes
 * the catalog meanwhile is what could change it between a decision and its
 * append anyway (another process's writes); the append's `no_stream` still
 * refuses an id taken since.
 */
export function* decideImportSteps(lines: readonly ImportLine[], context: ImportContext): Steps<PlannedItem[]> {
  const { state } = context;
  const batch = new BatchIndex();
  const ruleContext: RuleContext = {
    maxRegexLength: context.maxRegexLength,
    entityExists: (link) => (link.entity_type !== 'evaluation' && batch.has(link.entity_type, link.entity_id))
      || (link.entity_type === 'context' ? state.contexts.has(link.entity_id) : state.prompts.has(link.entity_id)),
    keyHolder: (key) => batch.keyHolder(key) ?? context.keyHolder?.(key),
  };
  const planned: PlannedItem[] = [];
  for (const { value, where } of lines) {
    try {
      const item = decideItem(value, context, ruleContext, batch);
      batch.add(item);
      planned.push(item);
    } catch (error) {
      if (error instanceof AppError) throw new AppError(error.code, `${where}: ${error.message}`);
      throw error;
    }
    if (planned.length % DECIDE_STEP === 0) yield;
  }
  return planned;
}

function decideItem(value: unknown, context: ImportContext, ruleContext: RuleContext, batch: BatchIndex): PlannedItem {
  const { kind: kindValue, id: idValue, ...body } = requireObject(value, 'the item');
  if (kindValue === undefined) throw badRequest(`kind is required: one of ${IMPORT_KINDS.join(', ')}`);
  const kind = readEnum(kindValue, 'kind', IMPORT_KINDS);
  const id = idValue === undefined ? context.newId() : readItemId(idValue, kind, context.state, batch);
  switch (kind) {
    case 'rule': {
      const input = parseRuleCreate(body);
      const entities = input.entities.map((link, i) => resolveLink(link, `entities[${i}]`, context.state, batch));
      const unique = [...new Map(entities.map((link) => [`${link.entity_type}:${link.entity_id}`, link])).values()];
      // A split's variant names its entity as a link does: by id, or by the name of one earlier in the batch.
      const splits = input.splits === undefined ? undefined
        : mapVariantIds(input.splits, (type, ref, path) => resolveLink({ entity_type: type, entity_id: ref }, path, context.state, batch).entity_id, 'splits');
      const decided = { ...input, entities: unique, ...(splits === undefined ? {} : { splits }) };
      return { kind, id, name: input.name, stream: streams.rule(id), events: decideCreateRule(id, decided, ruleContext) };
    }
    case 'context': {
      const input = parseContextCreate(body);
      return { kind, id, name: input.name, stream: streams.context(id), events: decideCreateContext(id, input) };
    }
    case 'prompt': {
      const input = parsePromptCreate(body, context.templateLimits);
      const holder = context.state.prompts.idsByName.get(input.name) ?? batch.promptNamed(input.name);
      return { kind, id, name: input.name, stream: streams.prompt(id), events: decideCreatePrompt(id, input, holder) };
    }
  }
}

/**
 * A caller-chosen id: a UUID in lower case that no resource and no earlier
 * item has. Another case is refused, not folded: every id RuleVault writes and
 * looks up is lower case, so `3F2B...` beside `3f2b...` would be a second
 * resource that no lookup of the first finds (docs/decisions/0037-lower-case-ids.md).
 */
function readItemId(value: unknown, kind: ImportKind, state: CatalogState, batch: BatchIndex): string {
  const id = readString(value, 'id', { maxLength: 36 });
  if (!isCanonicalUuid(id)) {
    throw badRequest(isCanonicalUuid(id.toLowerCase())
      ? `id must be in lower case, as RuleVault writes ids: ${id.toLowerCase()}`
      : 'id must be a UUID in lower case (e.g. 3f2b8c9e-1d4a-4b6c-9e8f-0a1b2c3d4e5f), or left out for a new one');
  }
  if (batch.ids.has(id)) throw badRequest(`id ${id} is already used by ${batch.ids.get(id)} of this import`);
  const taken = kind === 'rule' ? state.rules.has(id) : kind === 'context' ? state.contexts.has(id) : state.prompts.has(id);
  if (taken) throw conflict(`${kind} ${id} exists already`);
  return id;
}

/**
 * A context or prompt link as written in the item: an id (of an earlier item,
 * or an existing one), else the name of an earlier item (a prompt's: also an
 * existing prompt's, names being unique). Evaluation links stay as given.
 */
function resolveLink(link: EntityLink, path: string, state: CatalogState, batch: BatchIndex): EntityLink {
  const { entity_type: type, entity_id: ref } = link;
  if (type === 'evaluation') return link;
  if (batch.has(type, ref)) return link;
  if (type === 'context' ? state.contexts.has(ref) : state.prompts.has(ref)) return link;
  const named = batch.named(type, ref);
  if (named.length > 1) {
    throw badRequest(`${path}: ${named.length} ${type}s of this import are named ${JSON.stringify(ref)}; link by id (give the items an id)`);
  }
  const id = named[0] ?? (type === 'prompt' ? state.prompts.idsByName.get(ref) : undefined);
  if (id === undefined) {
    throw badRequest(`${path}: no ${type} with the id or name ${JSON.stringify(ref)} exists or comes earlier in this import${lowerCaseHint(ref)}`);
  }
  return { entity_type: type, entity_id: id };
}

/** The items decided so far: ids by kind, and ids by name. */
class BatchIndex {
  readonly ids = new Map<string, string>();
  private readonly byKind = { context: new Set<string>(), prompt: new Set<string>(), rule: new Set<string>() };
  private readonly names = { context: new Map<string, string[]>(), prompt: new Map<string, string[]>() };
  /** Flag keys of the batch's rules: a key is unique across the catalog and the batch. */
  private readonly keys = new Map<string, string>();

  keyHolder(key: string): string | undefined {
    return this.keys.get(key);
  }

  add(item: PlannedItem): void {
    this.ids.set(item.id, `the ${item.kind} ${JSON.stringify(item.name)}`);
    this.byKind[item.kind].add(item.id);
    const created = item.events[0];
    if (created?.type === 'RuleCreated' && created.data.key !== undefined) this.keys.set(created.data.key, item.id);
    if (item.kind === 'rule') return;
    const names = this.names[item.kind];
    names.set(item.name, [...(names.get(item.name) ?? []), item.id]);
  }

  has(kind: 'context' | 'prompt', id: string): boolean {
    return this.byKind[kind].has(id);
  }

  named(kind: 'context' | 'prompt', name: string): readonly string[] {
    return this.names[kind].get(name) ?? [];
  }

  promptNamed(name: string): string | undefined {
    return this.named('prompt', name)[0];
  }
}

/**
 * The answer when the store refused an item's stream although no resource
 * has its id: a resource that had it was deleted, and its stream (its
 * history) keeps the id for good.
 */
export function deletedIdError(item: PlannedItem, where: string): AppError {
  return conflict(`${where}: ${item.kind} ${item.id} was deleted, and the id of a deleted resource is never used again; leave id out for a new one`);
}

/** How many items of each kind a plan holds. */
export function countKinds(items: readonly PlannedItem[]): { rules: number; contexts: number; prompts: number } {
  const counts = { rules: 0, contexts: 0, prompts: 0 };
  for (const item of items) counts[`${item.kind}s`]++;
  return counts;
}
