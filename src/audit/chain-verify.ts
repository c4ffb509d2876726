/**
 * Verifies the hash chain of a log (a live store or an export), offline,
 * with only public keys: what `rulevault audit verify` runs.
 *
 * One pass in log order. Each event must carry a link whose hash and digest
 * match its own content (else: modified), whose sequence is the next one and
 * whose `prev` is the hash before it (else: removed, inserted or reordered,
 * told apart as below). An erased event (data `{"erased":true}`) is accepted
 * on its digest alone when a later event of its stream carries an `erases`
 * link covering it (the erasure record); otherwise it counts as modified.
 * Each checkpoint's signature is checked with its public key, which must be
 * one the auditor gave (or one a trusted key endorsed on rotation), and the
 * hash it signs must be the chain's hash at that sequence.
 *
 * Telling breaks apart, at the first event E that does not follow:
 * - E's sequence is ahead of the expected one: if the expected sequence turns
 *   up later in the log, events were reordered (at E); if never, removed
 *   (before E).
 * - E repeats the sequence and `prev` of the event accepted just before it:
 *   that event was inserted (named by its position).
 * - otherwise (a sequence already passed, a link that names another hash):
 *   inserted at E.
 */
import { CHECKPOINT_STREAM, asCheckpoint, checkpointMessage } from './chain-checkpoint';
import { EMPTY_CHAIN, GENESIS_HASH, checkLink, headOf, splitMetadata, type ChainHead, type ChainLink } from '../store/chain';
import { isPlainObject } from '../domain/input';
import { ERASED_DATA, parseJsonPosition, toJsonPosition, type EventMetadata, type RecordedEvent } from '../store/port';
import type { SignatureCheck } from '../vault/signing-key';

export type BreakKind = 'modified' | 'removed' | 'inserted' | 'reordered' | 'unlinked' | 'signature';

export interface ChainBreak {
  readonly position: string;
  readonly kind: BreakKind;
  readonly message: string;
}

export interface ChainPoint {
  readonly position: string;
  readonly seq: number;
  /** The chain's hash there: what a checkpoint signs, what an auditor may write down. */
  readonly hash: string;
}

export interface VerifyReport {
  readonly verified: boolean;
  readonly events: number;
  /** The last event up to which everything checked (null: none did). */
  readonly verified_through: ChainPoint | null;
  /** The last chain point a valid checkpoint signed with a trusted key (null: none). */
  readonly signed_through: ChainPoint | null;
  readonly checkpoints: number;
  readonly erased_events: number;
  /** False when no public key was given: signatures were checked only against the keys they name. */
  readonly keys_given: boolean;
  readonly break: ChainBreak | null;
}

/** One event as the verifier needs it. */
export interface ChainRecord {
  readonly position: bigint;
  readonly stream: string;
  readonly revision: bigint;
  readonly id: string;
  readonly type: string;
  readonly data: RecordedEvent['data'];
  readonly metadata: EventMetadata;
}

export interface VerifyOptions {
  /** Trusted public keys (base64); empty: check each signature against the key it names only. */
  readonly publicKeys: readonly string[];
  readonly checkSignature: SignatureCheck;
}

const ERASED_TEXT = JSON.stringify(ERASED_DATA);
/** How many recent links a checkpoint may reach back to. */
export const CHECKPOINT_WINDOW = 1 << 12;

/** Verifies `records`, in log order. */
export async function verifyChain(records: AsyncIterable<ChainRecord>, options: VerifyOptions): Promise<VerifyReport> {
  const trusted = new Set(options.publicKeys);
  let head: ChainHead = EMPTY_CHAIN;
  let beforeHead: ChainHead | undefined;
  let lastPosition: bigint | undefined;
  let lastAccepted: ChainPoint | null = null;
  let signedThrough: ChainPoint | null = null;
  let events = 0;
  let checkpoints = 0;
  let erased = 0;
  let found: ChainBreak | undefined;
  /** After a jump ahead: the sequence whose later appearance means "reordered". */
  let searching: { readonly seq: number; readonly position: bigint; readonly missing: string } | undefined;
  const recent = new Map<number, { hash: string; position: bigint }>();
  // Erased events waiting for the erasure record of their stream.
  const pending = new Map<string, { revision: bigint; position: bigint; before: ChainPoint | null }[]>();
  /** Where everything checked: the last accepted event, or the one before it when that one turns out inserted. */
  let verifiedThrough: ChainPoint | null = null;
  let previousAccepted: ChainPoint | null = null;

  const fail = (position: bigint, kind: BreakKind, message: string): void => {
    found = { position: toJsonPosition(position), kind, message };
  };

  for await (const record of records) {
    events++;
    if (searching !== undefined) {
      if (splitMetadata(record.metadata).link?.seq === searching.seq) {
        fail(searching.position, 'reordered', `the event at position ${searching.position} is out of order: chain sequence ${searching.seq} comes later, at position ${record.position}`);
        searching = undefined;
        break;
      }
      continue;
    }
    const { own, link } = splitMetadata(record.metadata);
    const where = record.position;
    if (lastPosition !== undefined && where <= lastPosition) {
      fail(where, 'reordered', `position ${where} comes after position ${lastPosition}: the log is out of order`);
      break;
    }
    if (link === undefined) {
      fail(where, 'unlinked', lastAccepted === null
        ? `the event at position ${where} carries no chain link: the log was written before the hash chain (run \`rulevault audit chain-upgrade\`)`
        : `the event at position ${where} carries no chain link: it was inserted`);
      break;
    }
    const check = checkLink(link, { stream: record.stream, revision: record.revision, id: record.id, type: record.type, dataText: JSON.stringify(record.data), metaText: JSON.stringify(own) }, ERASED_TEXT);
    if (check === 'hash' || check === 'data') {
      fail(where, 'modified', `the event at position ${where} was modified: its ${check === 'data' ? 'data does not match the digest' : 'content does not match the hash'} its chain link holds`);
      break;
    }
    const broken = classify(link, head, beforeHead, where, lastAccepted);
    if (broken !== undefined) {
      if (broken.kind === 'ahead') {
        searching = { seq: head.seq + 1, position: where, missing: `${head.seq + 1}${link.seq - 1 > head.seq + 1 ? `..${link.seq - 1}` : ''}` };
        continue;
      }
      fail(broken.position, 'inserted', broken.message);
      if (broken.position !== where) lastAccepted = previousAccepted;
      break;
    }
    if (check === 'erased') {
      erased++;
      const list = pending.get(record.stream) ?? [];
      list.push({ revision: record.revision, position: where, before: lastAccepted });
      pending.set(record.stream, list);
    }
    if (link.erases !== undefined) {
      const bound = BigInt(link.erases);
      const list = pending.get(record.stream);
      if (list !== undefined) {
        const left = list.filter((p) => p.revision >= bound);
        if (left.length === 0) pending.delete(record.stream);
        else pending.set(record.stream, left);
      }
    }
    const checkpoint = record.stream === CHECKPOINT_STREAM ? asCheckpoint(record) : undefined;
    if (record.stream === CHECKPOINT_STREAM) {
      const problem = checkpoint === undefined ? 'is malformed' : checkCheckpoint(checkpoint, recent, trusted, options);
      if (problem !== undefined) {
        fail(where, 'signature', `the checkpoint at position ${where} ${problem}`);
        break;
      }
      checkpoints++;
      const signed = recent.get(checkpoint!.seq);
      if (signed !== undefined) signedThrough = { position: toJsonPosition(signed.position), seq: checkpoint!.seq, hash: signed.hash };
      if (checkpoint!.next_public_key !== undefined) trusted.add(checkpoint!.next_public_key);
    }
    beforeHead = head;
    head = headOf(link);
    lastPosition = where;
    previousAccepted = lastAccepted;
    lastAccepted = { position: toJsonPosition(where), seq: link.seq, hash: link.hash };
    recent.set(link.seq, { hash: link.hash, position: where });
    recent.delete(link.seq - CHECKPOINT_WINDOW);
  }
  verifiedThrough = lastAccepted;
  if (searching !== undefined) {
    fail(searching.position, 'removed', `events were removed before position ${searching.position}: chain sequence ${searching.missing} is missing`);
  }
  // An erased event no erasure record covers (before the first break) was modified.
  const orphan = [...pending.values()].flat().filter((p) => found === undefined || p.position < BigInt(found.position)).sort((a, b) => (a.position < b.position ? -1 : 1))[0];
  if (orphan !== undefined) {
    fail(orphan.position, 'modified', `the event at position ${orphan.position} reads erased, but no erasure record of its stream covers it: its content was removed`);
    verifiedThrough = orphan.before;
  }
  return {
    verified: found === undefined,
    events,
    verified_through: verifiedThrough,
    signed_through: signedThrough,
    checkpoints,
    erased_events: erased,
    keys_given: options.publicKeys.length > 0,
    break: found ?? null,
  };
}

type Misfit = { readonly kind: 'ahead' } | { readonly kind: 'inserted'; readonly position: bigint; readonly message: string };

/** Why `link` does not follow `head`, or undefined when it does. */
function classify(link: ChainLink, head: ChainHead, beforeHead: ChainHead | undefined, where: bigint, lastAccepted: ChainPoint | null): Misfit | undefined {
  if (link.seq === head.seq + 1 && link.prev === head.hash) return undefined;
  if (link.seq > head.seq + 1) return { kind: 'ahead' };
  if (lastAccepted !== null && beforeHead !== undefined && link.seq === head.seq && link.prev === beforeHead.hash) {
    const inserted = BigInt(lastAccepted.position);
    return { kind: 'inserted', position: inserted, message: `the event at position ${inserted} was inserted: the event after it (position ${where}) links to the one before it` };
  }
  return { kind: 'inserted', position: where, message: `the event at position ${where} was inserted: its chain link (sequence ${link.seq}) does not follow sequence ${head.seq}` };
}

/** Why a checkpoint fails, or undefined when it holds. */
function checkCheckpoint(checkpoint: NonNullable<ReturnType<typeof asCheckpoint>>, recent: ReadonlyMap<number, { hash: string }>, trusted: ReadonlySet<string>, options: VerifyOptions): string | undefined {
  if (trusted.size > 0 && !trusted.has(checkpoint.public_key)) {
    return `is signed by key ${checkpoint.key_id} (${checkpoint.public_key}), which is none of the public keys given`;
  }
  if (!options.checkSignature(checkpoint.public_key, checkpointMessage(checkpoint.seq, checkpoint.hash, checkpoint.next_public_key), checkpoint.signature)) {
    return `has a signature that does not verify with key ${checkpoint.key_id}`;
  }
  // Sequence 0 is the empty log: a rotation before the first event signs only the next key.
  if (checkpoint.seq === 0 && checkpoint.hash === GENESIS_HASH) return undefined;
  const at = recent.get(checkpoint.seq);
  if (at === undefined) return `signs chain sequence ${checkpoint.seq}, which is not among the ${CHECKPOINT_WINDOW} links before it`;
  if (at.hash !== checkpoint.hash) return `signs hash ${checkpoint.hash} for chain sequence ${checkpoint.seq}, but the log holds ${at.hash} there`;
  return undefined;
}

/**
 * The records of an exported log (`audit export`: one event per line), in
 * file order; a line that is not an exported event stops with its number.
 */
export async function* recordsFromExport(lines: AsyncIterable<string>): AsyncGenerator<ChainRecord> {
  let number = 0;
  for await (const text of lines) {
    number++;
    if (text.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ExportLineError(`line ${number}: not valid JSON`);
    }
    const line = value as Record<string, unknown>;
    const position = typeof line.position === 'string' ? parseJsonPosition(line.position) : undefined;
    const revision = typeof line.revision === 'string' ? parseJsonPosition(line.revision) : undefined;
    if (position === undefined || revision === undefined || typeof line.stream !== 'string' || typeof line.id !== 'string'
      || typeof line.type !== 'string' || !isPlainObject(line.data) || !isPlainObject(line.metadata)) {
      throw new ExportLineError(`line ${number}: not an exported event ({id, stream, type, revision, position, data, metadata})`);
    }
    yield { position, revision, stream: line.stream, id: line.id, type: line.type, data: line.data as ChainRecord['data'], metadata: line.metadata as unknown as EventMetadata };
  }
}

export class ExportLineError extends Error {
  override readonly name = 'ExportLineError';
}
