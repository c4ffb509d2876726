/**
 * Checks an evidence file (evidence.ts) offline: no store, no data folder,
 * only the file and the public keys the auditor trusts. What
 * `rulevault audit verify-evidence` runs (docs/decisions/0064-verify-evidence.md).
 *
 * Each check names the part it finds altered:
 * - `signature`: the checkpoint is signed by a trusted key (given, or
 *   endorsed by a rotation signed by one), and its signature holds;
 * - `chain`: every link record's hash is what its content and the hash
 *   before it give, and the last one is the hash the checkpoint signs;
 * - `event` / `approval`: each included resource event (rule, context,
 *   prompt) or change-request event matches its own link and is the event
 *   the chain holds at its sequence; each stream's events are all there, up
 *   to the decision's position, and none of them after it;
 * - `record`: the record's digest, and that the included events, folded and
 *   evaluated by the audit engine, give the recorded answer.
 * A later check's finding may follow from an earlier one (a modified rule
 * event answers differently): the first finding is the one to read.
 */
import { evolve, initialState } from '../../projections';
import { evaluate, parseEvaluateRequest } from '../service/evaluate';
import { checkLink, linkHash, splitMetadata } from '../store/chain';
import { ERASED_DATA, parseJsonPosition, type RecordedEvent } from '../store/port';
import type { SignatureCheck } from '../vault/signing-key';
import { asCheckpoint, checkpointMessage } from './chain-checkpoint';
import { maskedFieldNames, replayBody, replayReport, type ReplayReport } from './decision-replay';
import { CHANGE_REQUEST_PREFIX, EVIDENCE_FORMAT, EVIDENCE_VERSION, changeRequestOf, recordDigest, type EvidenceEvent, type EvidenceFile, type LinkRecord } from './evidence';
import { createScanEngine, fieldsReadInSlices, scanInSlices } from './rule-check';

export type EvidencePart = 'record' | 'event' | 'approval' | 'chain' | 'signature';

export interface Finding {
  readonly part: EvidencePart;
  readonly message: string;
}

export interface EvidenceReport {
  readonly verified: boolean;
  readonly decision_id: string;
  readonly position: string | null;
  readonly events: number;
  readonly change_request_events: number;
  readonly links: number;
  readonly checkpoint: { readonly position: string; readonly seq: number; readonly key_id: string } | null;
  /** Each included change request as its events tell it: who opened it, who approved it (the approvals' actors), whether it was applied. */
  readonly change_requests: readonly ChangeRequestSummary[];
  /** The replay of the record over the included events (null when an earlier finding kept it from running). */
  readonly replay: ReplayReport | null;
  /** In check order: signature, chain, events and approvals, record. */
  readonly findings: readonly Finding[];
}

export interface ChangeRequestSummary {
  readonly id: string;
  readonly title: string;
  readonly author: string;
  readonly approvals: readonly { readonly by: string; readonly at: string; readonly revision: string }[];
  readonly applied_at: string | null;
}

export interface EvidenceVerifyOptions {
  readonly publicKeys: readonly string[];
  readonly checkSignature: SignatureCheck;
}

/** Not an evidence file at all (the command could not run: exit 1, not a finding). */
export class EvidenceFormatError extends Error {
  override readonly name = 'EvidenceFormatError';
}

const ERASED_TEXT = JSON.stringify(ERASED_DATA);

/** Verifies a parsed evidence file. */
export async function verifyEvidence(value: unknown, options: EvidenceVerifyOptions): Promise<EvidenceReport> {
  const file = readShape(value);
  const findings: Finding[] = [];
  const record = file.decision.record;
  const checkpoint = asCheckpoint({ ...file.checkpoint });
  findings.push(...signatureFindings(file, options));
  const chain = chainFindings(file);
  findings.push(...chain);
  const eventFindings = includedFindings(file);
  findings.push(...eventFindings);
  if (recordDigest(record) !== file.decision.sha256) {
    findings.push({ part: 'record', message: `the decision record was modified: its SHA-256 is ${recordDigest(record)}, the file says ${file.decision.sha256}` });
  }
  let replay: ReplayReport | null = null;
  if (chain.length === 0 && eventFindings.length === 0) {
    replay = await replayOver(file);
    const differing = Object.keys(replay.differences).filter((part) => replay!.unreproducible[part as keyof ReplayReport['unreproducible']] === undefined);
    if (differing.length > 0) {
      findings.push({
        part: 'record',
        message: `the included revisions do not give the recorded answer (${differing.map((part) => `${part}: ${JSON.stringify(replay!.differences[part as keyof ReplayReport['differences']])}`).join('; ')}): the record's request or answer was modified`,
      });
    }
  }
  return {
    verified: findings.length === 0,
    decision_id: record.decision_id,
    position: record.position,
    events: file.events.filter((event) => !event.stream.startsWith(CHANGE_REQUEST_PREFIX)).length,
    change_request_events: file.events.filter((event) => event.stream.startsWith(CHANGE_REQUEST_PREFIX)).length,
    links: file.chain.links.length,
    checkpoint: checkpoint === undefined ? null : { position: file.checkpoint.position, seq: checkpoint.seq, key_id: checkpoint.key_id },
    change_requests: changeRequestSummaries(file.events),
    replay,
    findings,
  };
}

/** The checkpoint's key is trusted (given, or endorsed along the rotations) and its signature holds. */
function signatureFindings(file: EvidenceFile, options: EvidenceVerifyOptions): Finding[] {
  const checkpoint = asCheckpoint(file.checkpoint);
  if (checkpoint === undefined) return [{ part: 'signature', message: `the checkpoint (position ${file.checkpoint.position}) is not a well-formed ChainCheckpointSigned event` }];
  const trusted = new Set(options.publicKeys);
  for (const event of file.endorsements) {
    const endorsing = asCheckpoint(event);
    if (endorsing?.next_public_key === undefined || !trusted.has(endorsing.public_key)) continue;
    if (options.checkSignature(endorsing.public_key, checkpointMessage(endorsing.seq, endorsing.hash, endorsing.next_public_key), endorsing.signature)) {
      trusted.add(endorsing.next_public_key);
    }
  }
  if (!trusted.has(checkpoint.public_key)) {
    return [{ part: 'signature', message: `the checkpoint is signed by key ${checkpoint.key_id} (${checkpoint.public_key}), which is none of the public keys given nor endorsed by one of them` }];
  }
  if (!options.checkSignature(checkpoint.public_key, checkpointMessage(checkpoint.seq, checkpoint.hash, checkpoint.next_public_key), checkpoint.signature)) {
    return [{ part: 'signature', message: `the checkpoint's signature does not verify with key ${checkpoint.key_id}: the checkpoint was modified` }];
  }
  return [];
}

/** Every link record's hash recomputed from the one before; the last must be what the checkpoint signs, at or after the decision. */
function chainFindings(file: EvidenceFile): Finding[] {
  const { first_seq: firstSeq, links } = file.chain;
  let prev = file.chain.prev;
  let lastPosition: bigint | undefined;
  for (const [index, link] of links.entries()) {
    const seq = firstSeq + index;
    const position = BigInt(link.position);
    if (lastPosition !== undefined && position <= lastPosition) return [{ part: 'chain', message: `the link record at position ${link.position} comes after position ${lastPosition}: the chain's records are out of order` }];
    lastPosition = position;
    const computed = linkHash(prev, seq, { stream: link.stream, revision: BigInt(link.revision), id: link.id, type: link.type, metaText: JSON.stringify(link.metadata) }, link.digest, link.erases);
    if (computed !== link.hash) {
      return [{ part: 'chain', message: `the chain link at position ${link.position} (sequence ${seq}) does not match its content: the link record was modified, removed or inserted there` }];
    }
    prev = link.hash;
  }
  const checkpoint = asCheckpoint(file.checkpoint);
  if (checkpoint === undefined) return [];
  const lastSeq = firstSeq + links.length - 1;
  if (lastSeq !== checkpoint.seq || prev !== checkpoint.hash) {
    return [{ part: 'chain', message: `the chain ends at sequence ${lastSeq} with hash ${prev}, but the checkpoint signs sequence ${checkpoint.seq}, hash ${checkpoint.hash}: a link record was modified, removed or inserted` }];
  }
  const at = file.decision.record.position;
  if (at === null || !links.some((link) => link.position === at)) {
    return [{ part: 'chain', message: `no link record is at the decision's position ${at ?? '(none)'}: the chain does not reach it` }];
  }
  if (BigInt(file.checkpoint.position) < BigInt(at)) return [{ part: 'chain', message: `the checkpoint (position ${file.checkpoint.position}) is before the decision's position ${at}` }];
  return [];
}

/** Each included event against its own link and the chain; each stream whole up to the decision's position. */
function includedFindings(file: EvidenceFile): Finding[] {
  const findings: Finding[] = [];
  const { first_seq: firstSeq, links } = file.chain;
  const at = BigInt(file.decision.record.position ?? '0');
  const byStream = new Map<string, EvidenceEvent[]>();
  for (const event of file.events) {
    const part = partOf(event.stream);
    const name = nameOf(event);
    const { own, link } = splitMetadata(event.metadata);
    const bad = (why: string) => findings.push({ part, message: `${name} ${why}` });
    if (link === undefined) {
      bad('carries no chain link');
      continue;
    }
    const check = checkLink(link, { stream: event.stream, revision: BigInt(event.revision), id: event.id, type: event.type, dataText: JSON.stringify(event.data), metaText: JSON.stringify(own) }, ERASED_TEXT);
    if (check !== 'ok') {
      bad(check === 'hash' ? 'was modified: its content does not match the hash its chain link holds' : 'was modified: its data does not match the digest its chain link holds');
      continue;
    }
    const index = link.seq - firstSeq;
    const held: LinkRecord | undefined = links[index];
    const before = index === 0 ? file.chain.prev : links[index - 1]?.hash;
    if (held === undefined || held.id !== event.id || held.stream !== event.stream || held.revision !== event.revision || held.type !== event.type
      || held.digest !== link.digest || held.hash !== link.hash || link.prev !== before || JSON.stringify(held.metadata) !== JSON.stringify(own) || held.position !== event.position) {
      bad(`is not the event the chain holds at sequence ${link.seq}: it was modified (its link recomputed) or put in`);
      continue;
    }
    if (BigInt(event.position) > at) bad(`is after the decision's position ${file.decision.record.position}: it cannot have been used`);
    byStream.set(event.stream, [...(byStream.get(event.stream) ?? []), event]);
  }
  // Every stream the answer names, and every change request an included event names, must be there.
  const answer = file.decision.record.answer;
  const wanted = new Map<string, EvidencePart>([
    ...answer.matchingRuleIds.map((id) => [`rule-${id}`, 'event'] as const),
    ...answer.entities.map((e) => [`${e.entity_type}-${e.entity_id}`, 'event'] as const).filter(([stream]) => !stream.startsWith('evaluation-')),
    ...file.events.flatMap((e) => {
      const id = changeRequestOf(splitMetadata(e.metadata).own);
      return id === undefined ? [] : [[`${CHANGE_REQUEST_PREFIX}${id}`, 'approval'] as const];
    }),
  ]);
  for (const [stream, part] of wanted) {
    if (!byStream.has(stream) && !links.some((link) => link.stream === stream)) {
      findings.push({ part: part === 'event' ? 'record' : part, message: `the record names ${stream}, which has no event in the chain up to the decision: ${part === 'event' ? 'the record was modified' : 'the change request is left out'}` });
    }
  }
  for (const stream of new Set([...byStream.keys(), ...wanted.keys()])) {
    const events = byStream.get(stream) ?? [];
    const revisions = new Set(events.map((e) => e.revision));
    const gap = events.findIndex((_, i) => !revisions.has(String(i)));
    if (gap >= 0) findings.push({ part: partOf(stream), message: `${stream}'s event at revision ${gap} is left out of the evidence` });
    const left = links.filter((link) => link.stream === stream && BigInt(link.position) <= at && !revisions.has(link.revision));
    if (left.length > 0) {
      findings.push({ part: partOf(stream), message: `${stream}'s event at revision ${left[0]!.revision} (position ${left[0]!.position}) is in the chain before the decision but left out of the evidence` });
    }
  }
  return findings;
}

/**
 * Each change request's story from its included events (ADR 0062): the
 * author is the opening event's actor, each approval's approver its actor
 * and the revision it read its data's; an edit clears the approvals before
 * it; applied is ChangeRequestApplied's time (ChangeRequestApplying's on
 * EventStoreDB when a decision came between the plan and its end).
 */
function changeRequestSummaries(events: readonly EvidenceEvent[]): ChangeRequestSummary[] {
  const requests = new Map<string, { id: string; title: string; author: string; approvals: ChangeRequestSummary['approvals'][number][]; applied_at: string | null }>();
  for (const event of events) {
    if (!event.stream.startsWith(CHANGE_REQUEST_PREFIX)) continue;
    const id = event.stream.slice(CHANGE_REQUEST_PREFIX.length);
    const request = requests.get(id) ?? { id, title: '', author: '', approvals: [], applied_at: null };
    requests.set(id, request);
    const data = event.data as { title?: unknown; revision?: unknown };
    const { actor, at } = event.metadata;
    if (event.type === 'ChangeRequestOpened') Object.assign(request, { title: String(data.title ?? ''), author: actor });
    else if (event.type === 'ChangeRequestRevised') request.approvals = [];
    else if (event.type === 'ChangeRequestApproved') request.approvals.push({ by: actor, at, revision: String(data.revision ?? '') });
    else if (event.type === 'ChangeRequestApplying' || event.type === 'ChangeRequestApplied') request.applied_at ??= at;
  }
  return [...requests.values()];
}

/** The record evaluated again over the included resource events, as `audit decision` replays it over the log. */
async function replayOver(file: EvidenceFile): Promise<ReplayReport> {
  const record = file.decision.record;
  const at = BigInt(record.position ?? '0');
  const state = initialState();
  let last: EvidenceEvent | undefined;
  for (const event of file.events) {
    if (event.stream.startsWith(CHANGE_REQUEST_PREFIX) || BigInt(event.position) > at) continue;
    evolve(state, asRecorded(event));
    last = event;
  }
  const request = parseEvaluateRequest(replayBody(record), file.limits, Date.parse(record.at));
  const engine = createScanEngine(state.rules);
  const matched = await scanInSlices(engine, request.fields);
  const answer = evaluate(state, { evaluate: () => matched }, request, file.limits);
  return replayReport(record, answer, { position: at, at: last?.metadata.at }, await fieldsReadInSlices(engine, maskedFieldNames(record)));
}

const asRecorded = (event: EvidenceEvent): RecordedEvent => ({ ...event, revision: BigInt(event.revision), position: BigInt(event.position) });

const partOf = (stream: string): EvidencePart => (stream.startsWith(CHANGE_REQUEST_PREFIX) ? 'approval' : 'event');

function nameOf(event: EvidenceEvent): string {
  const kind = event.stream.startsWith(CHANGE_REQUEST_PREFIX) ? 'change-request' : event.stream.split('-')[0];
  return `the ${kind} event ${event.type} of ${event.stream} at revision ${event.revision} (position ${event.position})`;
}

/** The file's shape, checked enough that every check above reads what it expects; EvidenceFormatError otherwise. */
function readShape(value: unknown): EvidenceFile {
  const file = value as Partial<EvidenceFile> | null;
  const fail = (why: string): never => {
    throw new EvidenceFormatError(`not a RuleVault evidence file: ${why}`);
  };
  if (typeof file !== 'object' || file === null || file.format !== EVIDENCE_FORMAT) fail(`its format is not "${EVIDENCE_FORMAT}"`);
  if (file!.version !== EVIDENCE_VERSION) fail(`version ${String(file!.version)} is not ${EVIDENCE_VERSION}`);
  const record = file!.decision?.record;
  if (typeof record !== 'object' || record === null || typeof record.decision_id !== 'string' || typeof file!.decision?.sha256 !== 'string'
    || !Array.isArray(record.answer?.matchingRuleIds) || !Array.isArray(record.answer?.entities) || typeof record.request !== 'object') {
    fail('decision.record is not a decision record');
  }
  if (record!.position !== null && (typeof record!.position !== 'string' || parseJsonPosition(record!.position) === undefined)) fail('decision.record.position is not a position');
  if (typeof file!.limits !== 'object' || file!.limits === null) fail('limits is missing');
  const isEvent = (e: unknown): boolean => {
    const event = e as Partial<EvidenceEvent> | null;
    return typeof event === 'object' && event !== null && typeof event.id === 'string' && typeof event.stream === 'string' && typeof event.type === 'string'
      && typeof event.revision === 'string' && parseJsonPosition(event.revision) !== undefined && typeof event.position === 'string'
      && parseJsonPosition(event.position) !== undefined && typeof event.data === 'object' && event.data !== null
      && typeof event.metadata === 'object' && event.metadata !== null;
  };
  if (!Array.isArray(file!.events) || !file!.events.every(isEvent)) fail('events is not a list of exported events');
  if (!isEvent(file!.checkpoint)) fail('checkpoint is not an exported event');
  if (!Array.isArray(file!.endorsements) || !file!.endorsements.every(isEvent)) fail('endorsements is not a list of exported events');
  const chain = file!.chain;
  const hex = (v: unknown) => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
  if (typeof chain !== 'object' || chain === null || !Number.isSafeInteger(chain.first_seq) || chain.first_seq < 1 || !hex(chain.prev)
    || !Array.isArray(chain.links) || chain.links.length === 0) {
    fail('chain is not {first_seq, prev, links}');
  }
  const isLink = (l: unknown): boolean => {
    const link = l as Partial<LinkRecord> | null;
    return typeof link === 'object' && link !== null && typeof link.stream === 'string' && typeof link.id === 'string' && typeof link.type === 'string'
      && typeof link.position === 'string' && parseJsonPosition(link.position) !== undefined && typeof link.revision === 'string'
      && parseJsonPosition(link.revision) !== undefined && hex(link.digest) && hex(link.hash) && typeof link.metadata === 'object' && link.metadata !== null
      && (link.erases === undefined || (typeof link.erases === 'string' && parseJsonPosition(link.erases) !== undefined));
  };
  if (!chain!.links.every(isLink)) fail('chain.links holds a record that is not a link record');
  return file as EvidenceFile;
}
