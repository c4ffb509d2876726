/**
 * Evidence for one decision (issue 67, item 4; docs/decisions/0063-evidence-file.md):
 * one JSON document an auditor verifies offline (evidence-verify.ts), built
 * here from the store.
 *
 * What it holds:
 * - the decision record as the sink holds it, and its SHA-256;
 * - every event, up to the record's position, of each stream the answer
 *   used: the matching rules, the contexts and prompts those rules link for
 *   the request's entity type, and the change requests (`change-request-<id>`)
 *   that any of those events names in `metadata.change_request`;
 * - the chain from the earliest of them to the hash a signed checkpoint at or
 *   after the record's position vouches for: one compact link record per
 *   event of the log in between (no data: its digest stands in), enough to
 *   recompute every link; the checkpoint event; the rotation checkpoints
 *   before it, so that a key endorsed since the auditor's key is followed.
 */
import { createHash } from 'node:crypto';
import { evolve, initialState } from '../../projections';
import type { Limits } from '../base/config';
import type { EntityType } from '../events';
import { splitMetadata, type ChainLink } from '../store/chain';
import { LOG_PAGE_BYTES, StreamDeletedError, toJsonPosition, type EventMetadata, type EventStore, type Json, type RecordedEvent } from '../store/port';
import { CHECKPOINT_STREAM, asCheckpoint } from './chain-checkpoint';
import { AppError } from '../base/errors';
import { decisionNotFound, readDecision, replayable, type DecisionRecord } from './decision-log';
import { exportedEvent } from './log-transfer';

export const EVIDENCE_FORMAT = 'rulevault-evidence';
export const EVIDENCE_VERSION = 1;
/** The stream of a change request (docs/decisions/0062-change-requests.md). */
export const CHANGE_REQUEST_PREFIX = 'change-request-';
/** Link records an evidence file holds at most unless told (about 400 bytes each). */
export const DEFAULT_MAX_LINKS = 200_000;

/** An event as `audit export` writes it: positions and revisions decimal, metadata with its `chain` link. */
export interface EvidenceEvent {
  readonly id: string;
  readonly stream: string;
  readonly type: string;
  readonly revision: string;
  readonly position: string;
  readonly data: { readonly [key: string]: Json };
  readonly metadata: EventMetadata;
}

/**
 * One event of the chain's range without its data: what its link's hash
 * covers (the digest in place of the data, the metadata without `chain`) and
 * the hash it holds. Its sequence is its place in the range.
 */
export interface LinkRecord {
  readonly position: string;
  readonly stream: string;
  readonly revision: string;
  readonly id: string;
  readonly type: string;
  readonly digest: string;
  readonly metadata: EventMetadata;
  readonly hash: string;
  readonly erases?: string;
}

/** The limits the replay reads the request under: the exporting node's. */
export type EvidenceLimits = Omit<Limits, 'maxBodyBytes'>;

/** The exporting node's limits as an evidence file keeps them. */
export function evidenceLimits({ maxBodyBytes: _, ...limits }: Limits): EvidenceLimits {
  return limits;
}

export interface EvidenceFile {
  readonly format: typeof EVIDENCE_FORMAT;
  readonly version: typeof EVIDENCE_VERSION;
  readonly created_at: string;
  readonly decision: { readonly record: DecisionRecord; readonly sha256: string };
  readonly limits: EvidenceLimits;
  /** The included events in log order: the resources' and the change requests'. */
  readonly events: readonly EvidenceEvent[];
  readonly chain: {
    /** The sequence of `links[0]` and the hash before it. */
    readonly first_seq: number;
    readonly prev: string;
    /** Every event of the log from the earliest included one to the one whose hash the checkpoint signs. */
    readonly links: readonly LinkRecord[];
  };
  readonly checkpoint: EvidenceEvent;
  /** Earlier checkpoints that endorse a next key (rotations), in log order. */
  readonly endorsements: readonly EvidenceEvent[];
}

/** Why evidence cannot be built; the CLI says it with exit 1. */
export class EvidenceError extends Error {
  override readonly name = 'EvidenceError';
}

/** SHA-256 of a record as the file holds it (its JSON text). */
export function recordDigest(record: unknown): string {
  return createHash('sha256').update(JSON.stringify(record), 'utf8').digest('hex');
}

export const toEvidenceEvent: (event: RecordedEvent) => EvidenceEvent = exportedEvent;

/** The entity streams a rule record links for one entity type, plain links and split variants alike. */
export function linkedEntityStreams(rule: { readonly entities: readonly { entity_type: string; entity_id: string }[]; readonly splits?: readonly { entity_type: string; variants: readonly { entity_id: string }[] }[] }, type: EntityType): string[] {
  if (type === 'evaluation') return [];
  const ids = new Set(rule.entities.filter((link) => link.entity_type === type).map((link) => link.entity_id));
  for (const split of rule.splits ?? []) if (split.entity_type === type) for (const variant of split.variants) ids.add(variant.entity_id);
  return [...ids].map((id) => `${type}-${id}`);
}

/** The change request an event names, if any (written by an apply: ADR 0062). */
export function changeRequestOf(metadata: EventMetadata): string | undefined {
  const id = (metadata as { change_request?: unknown }).change_request;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

export interface BuildOptions {
  readonly limits: EvidenceLimits;
  readonly maxLinks: number;
  readonly now: () => Date;
}

/** Builds the evidence of `record` from `store`; EvidenceError says why it cannot (no checkpoint yet, an unchained log, a range too long). */
export async function buildEvidence(store: EventStore, record: DecisionRecord, options: BuildOptions): Promise<EvidenceFile> {
  if (record.position === null) throw new EvidenceError(`decision ${record.decision_id} was answered on an empty log: no rule or entity to show`);
  const at = BigInt(record.position);
  const point = await store.readAt(at);
  const pointLink = point === undefined ? undefined : splitMetadata(point.metadata).link;
  if (pointLink === undefined) {
    throw new EvidenceError(`the event at the decision's position ${record.position} carries no chain link: link the log first (\`rulevault audit chain-upgrade\`)`);
  }
  const upTo = async (stream: string) => (await readStreamOrNone(store, stream)).filter((event) => event.position <= at);

  const rules = await Promise.all(record.answer.matchingRuleIds.map((id) => upTo(`rule-${id}`)));
  const folded = initialState();
  for (const event of rules.flat().sort(byPosition)) evolve(folded, event);
  const entityStreams = new Set<string>();
  for (const rule of folded.rules.values()) for (const stream of linkedEntityStreams(rule, record.request.entity_type as EntityType)) entityStreams.add(stream);
  const entities = await Promise.all([...entityStreams].sort().map(upTo));
  const resources = [...rules.flat(), ...entities.flat()];
  const requestIds = new Set(resources.flatMap((event) => changeRequestOf(event.metadata) ?? []));
  const requests = await Promise.all([...requestIds].sort().map((id) => upTo(`${CHANGE_REQUEST_PREFIX}${id}`)));
  const included = [...resources, ...requests.flat()].sort(byPosition);

  const checkpoints = await readStreamOrNone(store, CHECKPOINT_STREAM);
  const checkpoint = checkpoints.find((event) => event.position >= at && (asCheckpoint(event)?.seq ?? -1) >= pointLink.seq);
  if (checkpoint === undefined) {
    throw new EvidenceError(
      `no signed checkpoint at or after the decision's position ${record.position} yet: sign one (\`rulevault audit checkpoint\`, with the service stopped) or wait for the service's next one (RULEVAULT_CHAIN_CHECKPOINT_EVERY), then export again`,
    );
  }
  const signedSeq = asCheckpoint(checkpoint)!.seq;
  const endorsements = checkpoints.filter((event) => event.position < checkpoint.position && asCheckpoint(event)?.next_public_key !== undefined);
  const first = included[0] ?? point;
  const chain = await readRange(store, first.position, signedSeq, options.maxLinks);
  return {
    format: EVIDENCE_FORMAT,
    version: EVIDENCE_VERSION,
    created_at: options.now().toISOString(),
    decision: { record, sha256: recordDigest(record) },
    limits: options.limits,
    events: included.map(toEvidenceEvent),
    chain,
    checkpoint: toEvidenceEvent(checkpoint),
    endorsements: endorsements.map(toEvidenceEvent),
  };
}

/**
 * The evidence file of decision `id` from the records in `auditDir` and
 * `store`, as its text: what `rulevault audit evidence` writes and
 * GET /api/audit/decisions/{id}/evidence answers, byte for byte but
 * `created_at`. 404 for an unknown id, 409 for a record kept without its
 * request; EvidenceError when the file cannot be built.
 */
export async function decisionEvidence(store: EventStore, auditDir: string, id: string, options: BuildOptions): Promise<{ file: EvidenceFile; text: string }> {
  const stored = readDecision(auditDir, id);
  if (stored === undefined) throw new AppError('not_found', decisionNotFound(id));
  const file = await buildEvidence(store, replayable(stored), options);
  return { file, text: JSON.stringify(file) + '\n' };
}

const byPosition = (a: RecordedEvent, b: RecordedEvent) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0);

async function readStreamOrNone(store: EventStore, stream: string): Promise<RecordedEvent[]> {
  try {
    return await store.readStream(stream);
  } catch (error) {
    if (error instanceof StreamDeletedError) return [];
    throw error;
  }
}

/**
 * The link records from the event at `from` through chain sequence `throughSeq`.
 * The range starts with a read of the event at `from` itself, then pages
 * after positions of events read: on EventStoreDB a position is a record's
 * (commit, prepare) pair and `from - 1` is none (esdb-position.ts), which the
 * server refuses as a read's start.
 */
async function readRange(store: EventStore, from: bigint, throughSeq: number, maxLinks: number): Promise<EvidenceFile['chain']> {
  const links: LinkRecord[] = [];
  let firstLink: ChainLink | undefined;
  const start = await store.readAt(from);
  if (start === undefined) throw new EvidenceError(`no event is at position ${from}, the earliest one used: the log changed while it was read`);
  let page: RecordedEvent[] = [start];
  for (;;) {
    for (const event of page) {
      const { own, link } = splitMetadata(event.metadata);
      if (link === undefined) throw new EvidenceError(`the event at position ${event.position} carries no chain link: run \`rulevault audit verify\``);
      firstLink ??= link;
      if (links.length >= maxLinks) {
        throw new EvidenceError(`the chain from the earliest event used (position ${from}) to the checkpoint is longer than ${maxLinks} events: give a larger --max-links`);
      }
      links.push({
        position: toJsonPosition(event.position), stream: event.stream, revision: toJsonPosition(event.revision), id: event.id, type: event.type,
        digest: link.digest, metadata: own, hash: link.hash, ...(link.erases === undefined ? {} : { erases: link.erases }),
      });
      if (link.seq >= throughSeq) return { first_seq: firstLink.seq, prev: firstLink.prev, links };
    }
    page = await store.readAll({ after: page[page.length - 1]!.position, limit: 1000, maxDataBytes: LOG_PAGE_BYTES });
    if (page.length === 0) throw new EvidenceError(`the log ends before chain sequence ${throughSeq}, which its checkpoint signs`);
  }
}
