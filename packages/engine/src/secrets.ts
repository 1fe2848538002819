import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from "node:crypto";
import { HooklineError } from "@hookline/core";

/** Marks a value sealed by a {@link SecretBox}; anything else is plain text. */
const PREFIX = "enc:v1:";

/**
 * Encrypts secrets at rest (secret prop values, webhook secrets, app credentials) with AES-256-GCM.
 * Each value gets a random 96-bit IV; the auth tag makes tampering detectable.
 */
export interface SecretBox {
  /** Encrypts a string; the result starts with `enc:v1:`. */
  seal(plaintext: string): string;
  /** Decrypts what {@link SecretBox.seal} returned; throws `internal_error` if it was tampered with or the key differs. */
  open(sealed: string): string;
  /** True when `value` is a sealed string. */
  isSealed(value: unknown): value is string;
  /**
   * A value derived from the key that tells two keys apart without revealing either (an HMAC of a
   * constant): the store keeps the first node's, so a node started with another key is refused.
   */
  checkValue(): string;
}

/**
 * Makes a {@link SecretBox} from the host's secrets key. A 32-byte key (or 64 hex characters) is
 * used as is; any other string is stretched with SHA-256, so pass at least 32 random characters.
 *
 * @example
 * ```ts
 * const box = createSecretBox(process.env.HOOKLINE_SECRETS_KEY!);
 * const sealed = box.seal("xoxb-token");
 * box.open(sealed); // "xoxb-token"
 * ```
 */
export function createSecretBox(secretsKey: string | Uint8Array): SecretBox {
  if (secretsKey.length === 0) throw new HooklineError("bad_request", "secretsKey must not be empty");
  const key =
    typeof secretsKey === "string"
      ? /^[0-9a-f]{64}$/i.test(secretsKey)
        ? Buffer.from(secretsKey, "hex")
        : createHash("sha256").update(secretsKey).digest()
      : secretsKey.length === 32
        ? Buffer.from(secretsKey)
        : createHash("sha256").update(secretsKey).digest();
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
      const tag = cipher.getAuthTag();
      return `${PREFIX}${iv.toString("base64url")}.${body.toString("base64url")}.${tag.toString("base64url")}`;
    },
    open(sealed) {
      const [iv, body, tag] = sealed.slice(PREFIX.length).split(".");
      if (!sealed.startsWith(PREFIX) || !iv || body === undefined || !tag) {
        throw new HooklineError("internal_error", "A stored secret is not in the sealed format");
      }
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString(
          "utf8",
        );
      } catch (cause) {
        throw new HooklineError(
          "internal_error",
          "A stored secret could not be decrypted (wrong secretsKey?)",
          undefined,
          {
            cause,
          },
        );
      }
    },
    isSealed(value): value is string {
      return typeof value === "string" && value.startsWith(PREFIX);
    },
    checkValue() {
      return `v1:${createHmac("sha256", key).update("hookline secrets key check").digest("base64url")}`;
    },
  };
}
