/**
 * The id of a prompt version, as OpenLIT's `versionId`: a name-based UUID
 * (RFC 9562 version 5) of the prompt id and the version number. Derived, not
 * stored, so every version has one, those written before it included, and
 * every node and replay gives the same.
 */
import { createHash } from 'node:crypto';

// A fixed namespace for RuleVault prompt versions (itself a random v4 UUID, chosen once).
const NAMESPACE = Buffer.from('5d0f3f5e9b4c4f0a8a2e6c1b7d9e4a31', 'hex');

export function promptVersionId(promptId: string, version: string): string {
  const hash = createHash('sha1').update(NAMESPACE).update(`${promptId}@${version}`, 'utf8').digest();
  hash[6] = (hash[6]! & 0x0f) | 0x50;
  hash[8] = (hash[8]! & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
