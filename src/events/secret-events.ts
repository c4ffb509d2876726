/**
 * Events of the `secret-<id>` streams and the `vault-keyring` stream.
 * A secret value only ever appears sealed (see src/vault/seal.ts).
 */

/**
 * A value sealed with envelope encryption: the value under a fresh data key
 * (XChaCha20-Poly1305, additional data binds secret id and value version),
 * the data key wrapped by the master key (additional data binds secret id,
 * value version and master key id, so a re-wrap leaves the ciphertext as is).
 * All bytes base64.
 */
export interface SealedValue {
  readonly alg: 'xchacha20poly1305-ietf';
  /** Which master key wraps `wrapped_key`. */
  readonly master_key_id: string;
  readonly wrapped_key: string;
  readonly wrap_nonce: string;
  readonly nonce: string;
  readonly ciphertext: string;
}

/** A known plaintext sealed under the master key, to recognise the right key at start-up. */
export interface SealedCanary {
  readonly master_key_id: string;
  readonly nonce: string;
  readonly ciphertext: string;
}

export type SecretEvent =
  | {
      readonly type: 'SecretCreated';
      readonly data: {
        readonly id: string;
        readonly key: string;
        readonly tags: readonly string[];
        /** Version 1; the value is sealed for this version. */
        readonly version: number;
        readonly sealed: SealedValue;
      };
    }
  | {
      readonly type: 'SecretUpdated';
      readonly data: {
        readonly id: string;
        /** Every update makes a new version. */
        readonly version: number;
        readonly key?: string;
        readonly tags?: readonly string[];
        /** Present when the value changed; sealed for `version`. */
        readonly sealed?: SealedValue;
      };
    }
  | {
      /** Master-key rotation: the same data key, wrapped under another master key. */
      readonly type: 'SecretRewrapped';
      readonly data: {
        readonly id: string;
        /** The value version whose data key was re-wrapped. */
        readonly value_version: number;
        readonly sealed: SealedValue;
      };
    }
  | { readonly type: 'SecretDeleted'; readonly data: { readonly id: string } };

export type KeyringEvent =
  | { readonly type: 'MasterKeyEnrolled'; readonly data: { readonly canary: SealedCanary } }
  | {
      readonly type: 'MasterKeyRotated';
      readonly data: { readonly from_master_key_id: string; readonly canary: SealedCanary };
    };
