import { createHash, randomBytes } from "node:crypto";

/** The prefix of every API key, so leaked keys are recognizable by secret scanners. */
export const API_KEY_PREFIX = "hl_";

/** Makes a new API key: `hl_` and 32 random bytes, base64url. Shown to the user once. @internal */
export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString("base64url")}`;
}

/**
 * The hash under which a key is stored: SHA-256, hex. Keys are long random strings, so a fast hash
 * is enough (no password stretching needed) and lets every request be checked with one lookup.
 */
export function hashApiKey(key: string): string {
  return createHash("sha256").update(key).digest("hex");
}

/** The first characters of a key, kept in clear to tell keys apart in lists. @internal */
export function apiKeyHint(key: string): string {
  return `${key.slice(0, API_KEY_PREFIX.length + 4)}…`;
}
