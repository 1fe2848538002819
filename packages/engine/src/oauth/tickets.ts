/** Auth tickets by the hash of their secret: states, connect results and connect tokens. @internal */
import { createHash, randomBytes } from "node:crypto";

/** The ticket kinds of managed auth. */
export const TICKET = {
  /** An OAuth flow under way, by its `state`: single use, 10 minutes. */
  state: "oauth_state",
  /** A flow whose callback arrived and is being finished (it outlives the state), by its `state`. */
  busy: "oauth_busy",
  /** How a flow ended, by its `state`: for the CLI and the hosted page that wait on it. */
  result: "oauth_result",
  /** An end user's connect token. */
  connectToken: "connect_token",
} as const;

/** How long an OAuth flow may take from `connect` to the callback, ms. */
export const STATE_TTL_MS = 10 * 60_000;

/** The key a secret is stored under. */
export const ticketKey = (secret: string): string => createHash("sha256").update(secret).digest("base64url");

/** A new random secret with a prefix (`ctok_...`). */
export const newSecret = (prefix: string): string => `${prefix}${randomBytes(32).toString("base64url")}`;
