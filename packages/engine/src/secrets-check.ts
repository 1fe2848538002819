/**
 * The secrets-key check: every node sharing a store must encrypt with the same key. The first node
 * to start stores a check value derived from its key (a store setting); a node whose key gives
 * another value refuses to start, instead of failing to decrypt secrets later (about half the
 * deliveries of a cluster with two keys).
 */
import { HooklineError } from "@hookline/core";
import type { Store } from "@hookline/store";
import type { SecretBox } from "./secrets.js";

/** The store setting holding the check value. */
export const SECRETS_KEY_CHECK_SETTING = "secrets_key_check";

/**
 * Writes the check value of `box`'s key if the store has none, and throws `configuration_error`
 * (naming `HOOKLINE_SECRETS_KEY`) when the store's value is another key's.
 *
 * @param store - The store the node uses.
 * @param box - The node's secret box.
 * @example
 * ```ts
 * await checkSecretsKey(store, createSecretBox(process.env.HOOKLINE_SECRETS_KEY!));
 * ```
 */
export async function checkSecretsKey(store: Store, box: SecretBox): Promise<void> {
  const mine = box.checkValue();
  const stored = await store.settings.setIfAbsent(SECRETS_KEY_CHECK_SETTING, mine);
  if (stored === mine) return;
  throw new HooklineError(
    "configuration_error",
    "The secrets key (HOOKLINE_SECRETS_KEY, or the engine's secretsKey) is not the one this store's " +
      "secrets were encrypted with: every node sharing a store needs the same key. Start this node " +
      "with the key of the others.",
  );
}
