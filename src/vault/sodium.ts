/**
 * The one import of libsodium in the project. libsodium-wrappers fills its
 * exports in only once the WebAssembly module is ready, so callers get the
 * module through `loadSodium()` and never before.
 */
import sodium = require('libsodium-wrappers');

export type Sodium = typeof sodium;

/** Resolves to the initialised libsodium module (awaiting `sodium.ready` is idempotent). */
export async function loadSodium(): Promise<Sodium> {
  await sodium.ready;
  return sodium;
}
