/**
 * The hash chain checked over one range of the embedded store's rows, on the
 * texts as stored: the fast path of `rulevault audit verify`
 * (chain-verify-sqlite.ts). A link covers `JSON.stringify` of the data and of
 * the metadata without `chain`, which is exactly what the adapter stores, so
 * the stored texts are hashed as they are: no JSON.parse and re-stringify per
 * event (the profile of verify: parsing, re-stringifying and their garbage
 * were about two thirds of its time).
 *
 * It only decides whether the range is clean. At the first event that is not
 * (no link, a hash or digest that does not match the stored text, a link that
 * does not follow the one before it, a checkpoint that does not hold) it
 * stops, and the caller verifies the whole log with `verifyChain`, which
 * names the break and its kind. So this file classifies nothing, and a log
 * whose texts are not spelled as the adapter spells them (written by another
 * tool, then upgraded) is still judged by `verifyChain` alone.
 *
 * The one case where the two disagree: an event whose stored text is not
 * `JSON.stringify`'s spelling but whose link was recomputed over that very
 * text (someone rewrote it and relinked the chain after it). Its bytes match
 * its hashes, so the range is clean, where `verifyChain` (which hashes the
 * re-stringified content) reports it modified. Before a signed checkpoint the
 * relinking breaks the checkpoint, so the second pass still names the event;
 * after the last one, rewriting in the usual spelling goes unnoticed by both
 * (docs/auditors.md#what-the-chain-proves).
 */
import { CHECKPOINT_STREAM, asCheckpoint, checkpointMessage } from './chain-checkpoint';
import { CHAIN_VERSION, EMPTY_CHAIN, GENESIS_HASH, asLink, checkLink, linkHashOfHex, sha256Hex, type ChainLink } from '../store/chain';
import { ERASED_DATA, toJsonPosition } from '../store/port';
import type { EventRow } from '../store/sqlite-schema';
import type { SignatureCheck } from '../vault/signing-key';
import { CHECKPOINT_WINDOW, type ChainPoint } from './chain-verify';

const ERASED_TEXT = JSON.stringify(ERASED_DATA);

/** A link just before the range: what the range's first event must follow, and what its checkpoints may sign. */
export interface PriorLink {
  readonly position: bigint;
  readonly seq: number;
  readonly hash: string;
}

export interface RangeOptions {
  /** The links before the range, in log order (at most CHECKPOINT_WINDOW); empty for the range that starts the log. */
  readonly before: readonly PriorLink[];
  readonly checkSignature: SignatureCheck;
}

/** An erased event no erasure mark in its range covers (a later range's mark may). */
export interface PendingErasure {
  readonly stream: string;
  readonly revision: bigint;
}

/**
 * A checkpoint key the range cannot vouch for. verifyChain trusts the keys
 * given plus every key endorsed before (by rotation), and checks nothing when
 * that set is empty: `afterEndorsement` says the set was not empty here.
 */
export interface UntrustedKey {
  readonly key: string;
  readonly afterEndorsement: boolean;
}

export interface RangeSummary {
  readonly events: number;
  readonly last: ChainPoint | null;
  readonly checkpoints: number;
  readonly signed: ChainPoint | null;
  readonly erased: number;
  readonly pending: readonly PendingErasure[];
  /** The range's erasure marks in log order: that stream's events before `bound` are erased. */
  readonly marks: readonly { readonly stream: string; readonly bound: bigint }[];
  /** Keys of checkpoints that no endorsement earlier in the range vouches for, in log order. */
  readonly untrusted: readonly UntrustedKey[];
  /** Keys endorsed by the range's checkpoints (rotations), in log order. */
  readonly endorsed: readonly string[];
}

export type RangeResult =
  | { readonly clean: true; readonly summary: RangeSummary }
  | { readonly clean: false; readonly position: string; readonly reason: string };

export interface RangeCheck {
  /** Checks the next row; false once the range is not clean (then stop feeding it). */
  add(row: EventRow): boolean;
  result(): RangeResult;
}

const CHAIN_MEMBER = ',"chain":';

/**
 * The stored metadata's own text and its link, parsed but not validated
 * (`asLink`'s checks cost about a third of a row: bench chain, verify). The
 * range check vouches for a link by equalities instead: `hash` and `digest`
 * equal what it computes, `seq` and `prev` equal the link before (the first
 * event's genesis, or the link stored before the range, which that range
 * checked the same way), `v` equals the version; what remains is validated
 * where it is used. Undefined: no link (`splitMetadataText` explains the split).
 */
function splitStored(text: string): { readonly metaText: string; readonly link: ChainLink } | undefined {
  if (!text.endsWith('}}')) return undefined;
  const head = text.startsWith('{"chain":');
  const at = head ? 0 : text.lastIndexOf(CHAIN_MEMBER);
  if (at < 0) return undefined;
  let link: unknown;
  try {
    link = JSON.parse(text.slice(head ? 9 : at + CHAIN_MEMBER.length, -1));
  } catch {
    return undefined;
  }
  if (typeof link !== 'object' || link === null) return undefined;
  return { metaText: head ? '{}' : `${text.slice(0, at)}}`, link: link as ChainLink };
}

/**
 * The link text `JSON.stringify` writes for a link without `erases` whose
 * `prev` and `digest` are hex (no escaping): what the adapter stored.
 */
const linkSuffix = (seq: number, prev: string, digest: string, hash: string): string =>
  `,"chain":{"v":${CHAIN_VERSION},"seq":${seq},"prev":"${prev}","digest":"${digest}","hash":"${hash}"}}`;
/** Its length: everything but `seq` has a fixed length. */
const SUFFIX_FIXED = linkSuffix(0, GENESIS_HASH, GENESIS_HASH, GENESIS_HASH).length - 1;

export function createRangeCheck(options: RangeOptions): RangeCheck {
  const endorsedHere = new Set<string>();
  // The last CHECKPOINT_WINDOW accepted links by sequence, in a ring: what a checkpoint may sign.
  const ring = { seq: new Array<number>(CHECKPOINT_WINDOW).fill(-1), hash: new Array<string>(CHECKPOINT_WINDOW), position: new Array<bigint>(CHECKPOINT_WINDOW) };
  const remember = (seq: number, hash: string, position: bigint): void => {
    const slot = seq & (CHECKPOINT_WINDOW - 1);
    ring.seq[slot] = seq;
    ring.hash[slot] = hash;
    ring.position[slot] = position;
  };
  for (const link of options.before) remember(link.seq, link.hash, link.position);
  const prior = options.before[options.before.length - 1];
  let headSeq = prior === undefined ? EMPTY_CHAIN.seq : prior.seq;
  let headHash = prior === undefined ? EMPTY_CHAIN.hash : prior.hash;
  let lastPosition: bigint | undefined;
  let signed: ChainPoint | null = null;
  let events = 0;
  let checkpoints = 0;
  let erased = 0;
  let stopped: { position: string; reason: string } | undefined;
  const pending = new Map<string, bigint[]>();
  const marks: { stream: string; bound: bigint }[] = [];
  const untrusted: UntrustedKey[] = [];
  const endorsed: string[] = [];

  const stop = (position: bigint, reason: string): boolean => {
    stopped = { position: toJsonPosition(position), reason };
    return false;
  };

  const checkpointProblem = (dataText: string, type: string): string | undefined => {
    let data: unknown;
    try {
      data = JSON.parse(dataText);
    } catch {
      return 'checkpoint data is not JSON';
    }
    const checkpoint = asCheckpoint({ stream: CHECKPOINT_STREAM, type, data: data as never });
    if (checkpoint === undefined) return 'malformed checkpoint';
    if (!options.checkSignature(checkpoint.public_key, checkpointMessage(checkpoint.seq, checkpoint.hash, checkpoint.next_public_key), checkpoint.signature)) {
      return 'bad signature';
    }
    if (!(checkpoint.seq === 0 && checkpoint.hash === GENESIS_HASH)) {
      const slot = checkpoint.seq & (CHECKPOINT_WINDOW - 1);
      if (ring.seq[slot] !== checkpoint.seq || ring.hash[slot] !== checkpoint.hash) return 'signs a hash the log does not hold';
      signed = { position: toJsonPosition(ring.position[slot]!), seq: checkpoint.seq, hash: checkpoint.hash };
    }
    // Trust is settled by the caller, who knows the keys given and those endorsed in earlier ranges.
    if (!endorsedHere.has(checkpoint.public_key)) untrusted.push({ key: checkpoint.public_key, afterEndorsement: endorsedHere.size > 0 });
    if (checkpoint.next_public_key !== undefined) {
      endorsedHere.add(checkpoint.next_public_key);
      endorsed.push(checkpoint.next_public_key);
    }
    checkpoints++;
    return undefined;
  };

  /**
   * The usual event, without parsing its link: the link it must carry is
   * computed (the next sequence, the previous hash, the data's digest, the
   * hash) and its text compared with the stored one: about a quarter less
   * CPU per event than parsing and checking the link (bench: chain, verify).
   * Undefined: some other case (erased data, an erasure mark, a mismatch),
   * for `slowRow`.
   */
  const fastRow = (stream: string, revision: bigint, id: string, type: string, dataText: string, metadataText: string): string | undefined => {
    const seq = headSeq + 1;
    const split = metadataText.length - SUFFIX_FIXED - String(seq).length;
    // 0: the metadata's own text is `{}`, stored as `{"chain":...}`; 1 would be `{,"chain":...}`, not JSON.
    if (split < 0 || split === 1) return undefined;
    const metaText = split === 0 ? '{}' : `${metadataText.slice(0, split)}}`;
    const digest = sha256Hex(dataText);
    const hash = linkHashOfHex(headHash, seq, { stream, revision, id, type, metaText }, digest);
    const suffix = linkSuffix(seq, headHash, digest, hash);
    const expected = split === 0 ? `{${suffix.slice(1)}` : suffix;
    return metadataText.endsWith(expected) ? hash : undefined;
  };

  /** Any event, its link parsed: erased data, erasure marks, and whatever the fast path did not accept. */
  const slowRow = (position: bigint, stream: string, revision: bigint, id: string, type: string, dataText: string, metadataText: string): string | undefined => {
    const split = splitStored(metadataText);
    if (split === undefined) return void stop(position, 'no link');
    const { metaText, link } = split;
    if (link.seq !== headSeq + 1 || link.prev !== headHash) return void stop(position, 'does not follow');
    const check = checkLink(link, { stream, revision, id, type, dataText, metaText }, ERASED_TEXT);
    if (check === 'hash' || check === 'data') return void stop(position, `${check} does not match the stored text`);
    // What the equalities above do not vouch for: an erased event's digest, an erasure mark.
    if ((check === 'erased' || link.erases !== undefined) && asLink(link) === undefined) return void stop(position, 'malformed link');
    if (check === 'erased') {
      erased++;
      const list = pending.get(stream);
      if (list === undefined) pending.set(stream, [revision]);
      else list.push(revision);
    }
    if (link.erases !== undefined) {
      const bound = BigInt(link.erases);
      marks.push({ stream, bound });
      const list = pending.get(stream);
      if (list !== undefined) {
        const left = list.filter((r) => r >= bound);
        if (left.length === 0) pending.delete(stream);
        else pending.set(stream, left);
      }
    }
    return link.hash;
  };

  return {
    add(row) {
      if (stopped !== undefined) return false;
      const [position, stream, revision, id, type, dataText, metadataText] = row;
      const hash = fastRow(stream, revision, id, type, dataText, metadataText) ?? slowRow(position, stream, revision, id, type, dataText, metadataText);
      if (hash === undefined) return false;
      if (stream === CHECKPOINT_STREAM) {
        const problem = checkpointProblem(dataText, type);
        if (problem !== undefined) return stop(position, problem);
      }
      events++;
      headSeq += 1;
      headHash = hash;
      lastPosition = position;
      remember(headSeq, hash, position);
      return true;
    },
    result() {
      if (stopped !== undefined) return { clean: false, ...stopped };
      const left: PendingErasure[] = [];
      for (const [stream, revisions] of pending) for (const revision of revisions) left.push({ stream, revision });
      const last = lastPosition === undefined ? null : { position: toJsonPosition(lastPosition), seq: headSeq, hash: headHash };
      return { clean: true, summary: { events, last, checkpoints, signed, erased, pending: left, marks, untrusted, endorsed } };
    },
  };
}
