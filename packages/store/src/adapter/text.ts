/**
 * Text an adapter's database cannot hold as is. Postgres `text` refuses NUL characters and turns
 * lone surrogates into U+FFFD (silently), and `jsonb` refuses both. Adapters with such a type store
 * every string through {@link encodeText} and read it back through {@link decodeText}, and JSON
 * values as the JSON text of {@link jsonText}, so that every store gives back exactly what it was
 * given.
 */
import { StoreError } from "../types/index.js";

/** Starts an encoded string: U+FFFF, a noncharacter that text from people does not begin with. */
const MARK = "\uffff";
/** NUL, a lone high surrogate or a lone low surrogate. */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Encodes a string for a text column: unchanged unless it holds a NUL character or a lone surrogate
 * (or starts with U+FFFF); then U+FFFF followed by its JSON escape (plain, storable characters).
 * Deterministic and one-to-one, so equality in SQL still works on encoded values.
 *
 * @example
 * ```ts
 * encodeText("plain"); // "plain"
 * decodeText(encodeText("a\u0000b")); // "a\u0000b"
 * ```
 */
export function encodeText(text: string): string {
  if (text.charCodeAt(0) !== 0xffff && !UNSTORABLE.test(text)) return text;
  return MARK + JSON.stringify(text).slice(1, -1);
}

/**
 * Decodes what {@link encodeText} stored.
 *
 * @example
 * ```ts
 * decodeText(encodeText("\ud800")); // "\ud800"
 * ```
 */
export function decodeText(stored: string): string {
  if (stored.charCodeAt(0) !== 0xffff) return stored;
  try {
    return JSON.parse(`"${stored.slice(1)}"`) as string;
  } catch {
    return stored; // Not ours (stored before encoding existed): as it is.
  }
}

/**
 * The JSON text of a value, for a JSON column kept as text (`JSON.stringify` escapes NUL and lone
 * surrogates). `undefined` is SQL NULL. A value JSON cannot hold (a BigInt, a cycle) is an `invalid`
 * {@link StoreError} naming `field`.
 *
 * @example
 * ```ts
 * jsonText({ a: "\u0000" }, "body"); // '{"a":"\\u0000"}'
 * ```
 */
export function jsonText(value: unknown, field: string): string | null {
  if (value === undefined) return null;
  try {
    return JSON.stringify(value) ?? null;
  } catch (error) {
    throw new StoreError("invalid", `${field} is not JSON-serializable: ${(error as Error).message}`, field);
  }
}

/** A lone surrogate (a pair is one code point under the `u` flag). */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * The JSON text an event's body is stored as: the emitter's own text (`json`) when it has one that
 * UTF-8 can carry, byte for byte, else {@link jsonText} of `body` (which escapes lone surrogates).
 *
 * @example
 * ```ts
 * bodyText({ body: { b: 1, a: 1e21 }, json: '{"b":1,"a":1e+21}' }, "body"); // '{"b":1,"a":1e+21}'
 * ```
 */
export function bodyText(event: { body: unknown; json?: string | undefined }, field: string): string | null {
  if (event.json !== undefined && !LONE_SURROGATE.test(event.json)) return event.json;
  return jsonText(event.body, field);
}

/**
 * The UTF-8 size of a string in bytes (a lone surrogate counts 3, as its replacement would).
 *
 * @example
 * ```ts
 * utf8Length("é"); // 2
 * ```
 */
export function utf8Length(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) continue;
    if (code < 0x800) bytes += 1;
    else if (code >= 0xd800 && code <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2; // A pair: 4 bytes for 2 code units.
      i++;
    } else bytes += 2;
  }
  return bytes;
}

/**
 * The order every adapter sorts strings in where the Store promises one (such as `kv.list` by key):
 * by UTF-16 code units, as JavaScript compares them, whatever the database's collation.
 *
 * @example
 * ```ts
 * ["b", "a"].sort(compareText); // ["a", "b"]
 * ```
 */
export const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
