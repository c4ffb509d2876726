/**
 * The hash chain over the log (issue 19): what each event's `metadata.chain`
 * holds, how an adapter computes it at append, and how one link is checked.
 * Pure: no I/O; both adapters, the bulk loader, the upgrade and the verifier
 * share it, so there is one definition of what a link covers.
 *
 * A link: `{v, seq, prev, digest, hash, erases?}`.
 * - `seq`: the event's place in the chain, 1 for the first event of the log.
 *   The chain covers this sequence, not the store's position: EventStoreDB
 *   assigns positions only after the append, and an import renumbers them,
 *   while the chain sequence is known before the write and survives an import.
 * - `digest`: SHA-256 of the event's data as JSON text. Kept beside the data
 *   so that an erased event (data rewritten to `{"erased":true}`) still shows
 *   what the chain covered, without its sealed content.
 * - `hash`: SHA-256 over the previous link's hash, `seq`, stream, revision,
 *   id, type, `digest`, `erases` and the metadata's JSON text without `chain`.
 * - `prev`: the previous event's hash (64 zeros for the first event), stored
 *   so a break can be told apart (removed, inserted, reordered) and so a link
 *   can be checked on its own.
 * - `erases`: on the first event of an `appendErasing`, the revision before
 *   which that stream's events are erased; the verifier accepts an erased
 *   event only when a later link of its stream says so.
 *
 * Hash choice (bench/scenarios/chain.ts): node:crypto's one-shot SHA-256
 * (`crypto.hash`, OpenSSL with SHA extensions) costs about as much as
 * libsodium's BLAKE2b from WebAssembly on these events and needs no import of
 * libsodium outside src/vault.
 */
import * as crypto from 'node:crypto';
import type { EventMetadata, NewEvent } from './port';

export const CHAIN_VERSION = 1;
/** The `prev` of the first event of a log. */
export const GENESIS_HASH = '0'.repeat(64);

export interface ChainLink {
  readonly v: number;
  readonly seq: number;
  readonly prev: string;
  readonly digest: string;
  readonly hash: string;
  /** Decimal revision: this stream's events before it are erased (see module doc). */
  readonly erases?: string;
}

/** The last link of a log: where the next event's link starts from. */
export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

export const EMPTY_CHAIN: ChainHead = { seq: 0, hash: GENESIS_HASH };

/** What a link covers, as the adapters have it at append (texts exactly as stored). */
export interface LinkInput {
  readonly stream: string;
  readonly revision: bigint;
  readonly id: string;
  readonly type: string;
  /** JSON.stringify(data). */
  readonly dataText: string;
  /** JSON.stringify(metadata without `chain`). */
  readonly metaText: string;
  readonly erases?: bigint;
}

type HashFn = (text: string) => string;
// crypto.hash (Node >= 20.12) skips the Hash object; about twice as fast on small inputs.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;
export const sha256Hex: HashFn = oneShot
  ? (text) => oneShot('sha256', text, 'hex')
  : (text) => crypto.createHash('sha256').update(text).digest('hex');

/** The hash of a link whose digest is given (an erased event keeps its digest, not its data). */
export function linkHash(prev: string, seq: number, input: Omit<LinkInput, 'dataText' | 'erases'>, digest: string, erases: string | undefined): string {
  const header = JSON.stringify(['rv-chain-1', seq, prev, input.stream, input.revision.toString(), input.id, input.type, digest, erases ?? null]);
  return sha256Hex(`${header}\n${input.metaText}`);
}

/**
 * `linkHash` for a link without `erases` whose `prev` and `digest` are hex
 * (computed, or already checked): the same text written by a template
 * instead of JSON.stringify of an array (about 0.3 µs less per event: bench
 * chain, verify). Hex needs no escaping, so the text is byte for byte the same.
 */
export function linkHashOfHex(prev: string, seq: number, input: Omit<LinkInput, 'dataText' | 'erases'>, digest: string): string {
  return sha256Hex(`["rv-chain-1",${seq},"${prev}",${JSON.stringify(input.stream)},"${input.revision}",${JSON.stringify(input.id)},${JSON.stringify(input.type)},"${digest}",null]\n${input.metaText}`);
}

/** The link of the event after `head`. */
export function nextLink(head: ChainHead, input: LinkInput): ChainLink {
  const seq = head.seq + 1;
  const digest = sha256Hex(input.dataText);
  const erases = input.erases?.toString();
  const hash = linkHash(head.hash, seq, input, digest, erases);
  return input.erases === undefined
    ? { v: CHAIN_VERSION, seq, prev: head.hash, digest, hash }
    : { v: CHAIN_VERSION, seq, prev: head.hash, digest, hash, erases };
}

const CHAIN_MEMBER = ',"chain":';

/** The stored metadata text: the metadata's own text with `chain` as its last member. */
export function withLinkText(metaText: string, link: ChainLink): string {
  const linkText = JSON.stringify(link);
  return metaText === '{}' ? `{"chain":${linkText}}` : `${metaText.slice(0, -1)}${CHAIN_MEMBER}${linkText}}`;
}

/**
 * Splits a stored metadata text into the metadata's own text and its link
 * (undefined: the event carries none). `chain` is always the last member and
 * its value holds no object, so the last `,"chain":` is it: inside a JSON
 * string that text would be escaped (`,\"chain\":`).
 */
export function splitMetadataText(text: string): { readonly metaText: string; readonly link: ChainLink | undefined } {
  const first = text.startsWith('{"chain":');
  const at = first ? 0 : text.lastIndexOf(CHAIN_MEMBER);
  if (at < 0 || !text.endsWith('}}')) return { metaText: text, link: undefined };
  const link = parseLink(text.slice(at + CHAIN_MEMBER.length, -1));
  // Not a link (a caller's own nested `chain` member): the text stays whole.
  if (link === undefined) return { metaText: text, link: undefined };
  return { metaText: first ? '{}' : `${text.slice(0, at)}}`, link };
}

/**
 * The stored metadata text without its link, for readers that never read
 * links (the cold start's read-ahead), without parsing anything: about 1 µs
 * less per event than `splitMetadataText` (bench: chain, cold replay). The
 * last `,"chain":` is cut only when a flat object (no brace inside) follows
 * it up to the text's last character: then it is the root's member, as the
 * adapter writes it. Any other text is returned whole.
 */
export function withoutLinkText(text: string): string {
  const first = text.startsWith('{"chain":{');
  const at = first ? 0 : text.lastIndexOf(CHAIN_MEMBER);
  const from = at + CHAIN_MEMBER.length;
  if (at < 0 || text.charCodeAt(from) !== 123 || !text.endsWith('}}')) return text;
  const close = text.indexOf('}', from);
  if (close !== text.length - 2 || text.indexOf('{', from + 1) >= 0) return text;
  return first ? '{}' : `${text.slice(0, at)}}`;
}

function parseLink(text: string): ChainLink | undefined {
  try {
    return asLink(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** The link in parsed metadata, or undefined when it has none (or a malformed one). */
export function asLink(value: unknown): ChainLink | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const link = value as Record<string, unknown>;
  const hex = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
  if (typeof link.v !== 'number' || !Number.isSafeInteger(link.seq) || (link.seq as number) < 1) return undefined;
  if (!hex(link.prev) || !hex(link.digest) || !hex(link.hash)) return undefined;
  if (link.erases !== undefined && (typeof link.erases !== 'string' || !/^(0|[1-9][0-9]*)$/.test(link.erases))) return undefined;
  return link as unknown as ChainLink;
}

/** Parsed metadata split into its own members and its link. */
export function splitMetadata(metadata: EventMetadata): { readonly own: EventMetadata; readonly link: ChainLink | undefined } {
  if (!Object.prototype.hasOwnProperty.call(metadata, 'chain')) return { own: metadata, link: undefined };
  const { chain, ...own } = metadata as EventMetadata & { chain?: unknown };
  return { own: own as EventMetadata, link: asLink(chain) };
}

/**
 * What identifies a log at one position: the event there, by its id and its
 * link's hash, which covers every event before it too (null on a log written
 * before the chain and not upgraded). A snapshot records it and is used only
 * on a log that has the same there (snapshotter.ts).
 */
export interface LogMark {
  readonly id: string;
  readonly chain: string | null;
}

/** The mark of an event as read from the log (its metadata with the link). */
export function markOf(event: { readonly id: string; readonly metadata: EventMetadata }): LogMark {
  return { id: event.id, chain: splitMetadata(event.metadata).link?.hash ?? null };
}

/** The metadata's text as a link covers it: any `chain` member a caller passed (an import) is dropped, never trusted. */
export function ownMetadataText(metadata: EventMetadata): string {
  return JSON.stringify(splitMetadata(metadata).own);
}

/** What the check of one event's own link found. */
export type LinkCheck = 'ok' | 'erased' | 'data' | 'hash';

/**
 * Checks an event's link against its own content: `data` when the data does
 * not match the digest, `hash` when the rest does not match the hash,
 * `erased` when the data is the erasure marker and only the digest can vouch
 * for the content (the caller decides whether an erasure covers it).
 */
export function checkLink(link: ChainLink, input: Omit<LinkInput, 'erases'>, erasedText: string): LinkCheck {
  if (link.v !== CHAIN_VERSION || linkHash(link.prev, link.seq, input, link.digest, link.erases) !== link.hash) return 'hash';
  if (sha256Hex(input.dataText) === link.digest) return 'ok';
  return input.dataText === erasedText ? 'erased' : 'data';
}

/** The head after `link`. */
export function headOf(link: ChainLink): ChainHead {
  return { seq: link.seq, hash: link.hash };
}

/** An event as the texts an adapter stores: how a batch crosses to the embedded store's worker (sqlite-batch.ts). */
export interface EventTexts {
  readonly id: string;
  readonly type: string;
  /** JSON.stringify(data). */
  readonly dataText: string;
  /** JSON.stringify(metadata without `chain`): any `chain` a caller passed is dropped, never trusted. */
  readonly metaText: string;
}

/** An event's texts; `newId` names it when the caller did not. */
export function eventTexts(event: NewEvent, newId: () => string): EventTexts {
  return { id: event.id ?? newId(), type: event.type, dataText: JSON.stringify(event.data), metaText: ownMetadataText(event.metadata) };
}

/** One event of an append as an adapter writes it: texts exactly as stored. */
export interface LinkedTexts extends EventTexts {
  /** The stored metadata text: `metaText` with the link as its last member (without one on an unchained log). */
  readonly metadataText: string;
  readonly link: ChainLink | undefined;
}

/**
 * Links the events of one append, the first at `firstRevision`, after
 * `head`. `head` undefined: the log was written before the chain and is not
 * upgraded yet (see chain-upgrade); its new events stay unlinked too, so the
 * log stays one that the upgrade can link whole. `erasing`: the append
 * erases the stream's earlier events (appendErasing).
 */
export function linkTexts(
  head: ChainHead | undefined,
  stream: string,
  firstRevision: bigint,
  events: readonly EventTexts[],
  erasing: boolean,
): { readonly events: LinkedTexts[]; readonly head: ChainHead | undefined } {
  let current = head;
  const linked = events.map((event, index): LinkedTexts => {
    if (current === undefined) return { ...event, metadataText: event.metaText, link: undefined };
    const revision = firstRevision + BigInt(index);
    const erases = erasing && index === 0 ? revision : undefined;
    const link = nextLink(current, { stream, revision, id: event.id, type: event.type, dataText: event.dataText, metaText: event.metaText, erases });
    current = headOf(link);
    return { ...event, metadataText: withLinkText(event.metaText, link), link };
  });
  return { events: linked, head: current };
}

/** `linkTexts` of parsed events, each also with its data and its metadata without `chain` (EventStoreDB writes those as JSON). */
export function linkAppend(
  head: ChainHead | undefined,
  stream: string,
  firstRevision: bigint,
  events: readonly NewEvent[],
  erasing: boolean,
  newId: () => string,
): { readonly events: (LinkedTexts & { readonly data: NewEvent['data']; readonly own: EventMetadata })[]; readonly head: ChainHead | undefined } {
  const linked = linkTexts(head, stream, firstRevision, events.map((event) => eventTexts(event, newId)), erasing);
  return { events: linked.events.map((event, i) => ({ ...event, data: events[i]!.data, own: splitMetadata(events[i]!.metadata).own })), head: linked.head };
}
