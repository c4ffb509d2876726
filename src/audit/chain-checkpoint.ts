/**
 * Signed checkpoints of the hash chain (issue 19). A checkpoint is an event
 * of its own, `ChainCheckpointSigned` in the stream `chain-checkpoints`, so
 * it travels with the log (exports included) and is itself linked into the
 * chain. Its data: the chain sequence and hash it vouches for, the signing
 * key's public half and id, the Ed25519 signature, and on a key rotation the
 * next key's public half (signed by the old key, so an auditor holding the
 * first public key can follow every rotation).
 */
import type { EventStore, Json, RecordedEvent } from '../store/port';
import type { ChainHead } from '../store/chain';
import type { SigningKey } from '../vault/signing-key';

export const CHECKPOINT_STREAM = 'chain-checkpoints';
export const CHECKPOINT_TYPE = 'ChainCheckpointSigned';

export interface CheckpointData {
  readonly seq: number;
  readonly hash: string;
  readonly public_key: string;
  readonly key_id: string;
  readonly signature: string;
  readonly next_public_key?: string;
}

/** The bytes a checkpoint's signature covers. */
export function checkpointMessage(seq: number, hash: string, nextPublicKey: string | undefined): string {
  return `rulevault-chain-checkpoint-v1\n${seq}\n${hash}\n${nextPublicKey ?? ''}`;
}

/** The checkpoint's data when `event` is one, else undefined (or when its data is malformed: the verifier reports that). */
export function asCheckpoint(event: Pick<RecordedEvent, 'stream' | 'type' | 'data'>): CheckpointData | undefined {
  if (event.stream !== CHECKPOINT_STREAM || event.type !== CHECKPOINT_TYPE) return undefined;
  const d = event.data as Record<string, unknown>;
  const text = (v: unknown): v is string => typeof v === 'string';
  if (!Number.isSafeInteger(d.seq) || !text(d.hash) || !text(d.public_key) || !text(d.key_id) || !text(d.signature)) return undefined;
  if (d.next_public_key !== undefined && !text(d.next_public_key)) return undefined;
  return d as unknown as CheckpointData;
}

export interface CheckpointWrite {
  readonly store: EventStore;
  readonly key: SigningKey;
  readonly head: ChainHead;
  readonly actor: string;
  readonly at: string;
  readonly requestId: string;
  /** On a rotation: the key that signs from now on. */
  readonly nextPublicKey?: string;
}

/** Signs `head` and appends the checkpoint; resolves with its position. */
export async function writeCheckpoint(write: CheckpointWrite): Promise<{ position: bigint; data: CheckpointData }> {
  const { head, key } = write;
  const data: CheckpointData = {
    seq: head.seq,
    hash: head.hash,
    public_key: key.publicKey,
    key_id: key.keyId,
    signature: key.sign(checkpointMessage(head.seq, head.hash, write.nextPublicKey)),
    ...(write.nextPublicKey === undefined ? {} : { next_public_key: write.nextPublicKey }),
  };
  const result = await write.store.append(
    CHECKPOINT_STREAM,
    [{ type: CHECKPOINT_TYPE, data: data as unknown as { [key: string]: Json }, metadata: { actor: write.actor, at: write.at, request_id: write.requestId, schema: 1 } }],
    'any',
  );
  return { position: result.position, data };
}
