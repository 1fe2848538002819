/**
 * Identifiers: `<prefix>_<26 chars>`, where the first 10 characters encode the creation time in
 * milliseconds (so ids sort by time as strings) and the other 16 are random. Lower-case Crockford
 * base32: URL-safe, no ambiguous letters. Ids made in the same millisecond by one process still
 * sort in creation order (the random part is incremented).
 */

/** The id prefixes Hookline uses, by resource. */
export const ID_PREFIXES = {
  workspace: "ws",
  apiKey: "key",
  account: "apn",
  savedComponent: "sc",
  deployedComponent: "dc",
  endpoint: "en",
  webhook: "wh",
  subscription: "sub",
  emit: "evt",
  delivery: "dlv",
  attempt: "att",
  workflow: "p",
  execution: "exe",
  dataStore: "ds",
  replay: "rpl",
} as const;

/** One of {@link ID_PREFIXES}' values. */
export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const RANDOM_LENGTH = 16;
let lastTime = -1;
let lastRandom: number[] = [];

/**
 * Random bytes drawn 4 KB at a time: one `getRandomValues` call per 256 ids rather than one per id
 * (a store write makes three ids per delivered event; the call was 2.6 % of a loaded server's CPU).
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;

function randomDigits(): number[] {
  if (poolAt + RANDOM_LENGTH > pool.length) {
    globalThis.crypto.getRandomValues(pool);
    poolAt = 0;
  }
  const digits = new Array<number>(RANDOM_LENGTH);
  for (let i = 0; i < RANDOM_LENGTH; i++) digits[i] = (pool[poolAt + i] as number) & 31;
  poolAt += RANDOM_LENGTH;
  return digits;
}

function increment(digits: number[]): number[] {
  const next = [...digits];
  for (let i = next.length - 1; i >= 0; i--) {
    const digit = next[i] as number;
    if (digit < 31) {
      next[i] = digit + 1;
      return next;
    }
    next[i] = 0;
  }
  return randomDigits(); // 32^16 ids in one millisecond: cannot happen in practice
}

function encodeTime(ms: number): string {
  let out = "";
  let rest = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/**
 * Makes a new random, URL-safe, time-sortable id with the given prefix.
 *
 * @param prefix - One of {@link ID_PREFIXES}, such as `"dc"` (without the underscore).
 * @param now - The time to encode, epoch ms (defaults to `Date.now()`).
 * @example
 * ```ts
 * newId("wh"); // "wh_01jd3k6y2f8q4m7c1x9zb5t0ne"
 * ```
 */
export function newId(prefix: IdPrefix | (string & {}), now: number = Date.now()): string {
  let random: number[];
  if (now === lastTime) {
    random = increment(lastRandom);
  } else {
    random = randomDigits();
    lastTime = now;
  }
  lastRandom = random;
  return `${prefix}_${encodeTime(now)}${random.map((digit) => ALPHABET[digit]).join("")}`;
}

/**
 * Returns true when `id` looks like an id made by {@link newId} with `prefix`.
 *
 * @example
 * ```ts
 * isId("dc_01jd3k6y2f8q4m7c1x9zb5t0ne", "dc"); // true
 * ```
 */
export function isId(id: unknown, prefix: string): id is string {
  return typeof id === "string" && new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`).test(id);
}

/**
 * The creation time (epoch ms) encoded in an id made by {@link newId}.
 *
 * @example
 * ```ts
 * idTime(newId("evt", 1_700_000_000_000)); // 1700000000000
 * ```
 */
export function idTime(id: string): number {
  const body = id.slice(id.indexOf("_") + 1, id.indexOf("_") + 11);
  let ms = 0;
  for (const char of body) ms = ms * 32 + ALPHABET.indexOf(char);
  return ms;
}
