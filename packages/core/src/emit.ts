import Type, { type Static } from "typebox";
import { HooklineError, type Problem } from "./errors.js";
import { problem } from "./problems.js";

/** The channel an event goes to when `$emit` names none. */
export const DEFAULT_CHANNEL = "default";

/** The longest channel name, in characters. */
export const CHANNEL_NAME_MAX_LENGTH = 128;

/**
 * What a channel name may be, in words: channels travel in the `x-hookline-event-name` header of
 * every delivery, so a name must be a valid header value that survives the trip unchanged.
 */
export const CHANNEL_NAME_RULE =
  "1 to 128 printable ASCII characters (letters, digits, punctuation and spaces inside; no control characters, no other characters, no leading or trailing space)";

// Printable ASCII (0x20-0x7E); a space neither first nor last (header parsers trim it).
const CHANNEL_NAME = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * Checks a channel name (`$emit`'s `name`) against {@link CHANNEL_NAME_RULE}. Returns the problems,
 * empty when valid; `path` names the field in them.
 *
 * @example
 * ```ts
 * validateChannelName("$errors"); // []
 * validateChannelName("new\nline"); // [{ code: "invalid_value", path: "name", ... }]
 * ```
 */
export function validateChannelName(name: unknown, path = "name"): Problem[] {
  if (typeof name !== "string" || name === "") {
    return [problem("invalid_type", path, "name (the channel) must be a non-empty string")];
  }
  if (name.length > CHANNEL_NAME_MAX_LENGTH || !CHANNEL_NAME.test(name)) {
    return [problem("invalid_value", path, `the channel name must be ${CHANNEL_NAME_RULE}`)];
  }
  return [];
}

/** Schema of the metadata of `this.$emit(event, { id, name, summary, ts })`. */
export const EmitMetaSchema = Type.Object(
  {
    id: Type.Optional(Type.Union([Type.String(), Type.Number()])),
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: CHANNEL_NAME_MAX_LENGTH, pattern: CHANNEL_NAME.source }),
    ),
    summary: Type.Optional(Type.String()),
    ts: Type.Optional(Type.Integer()),
  },
  { additionalProperties: true },
);

/** Metadata of an emitted event. */
export type EmitMeta = Static<typeof EmitMetaSchema>;

/** One `$emit` call: the event and its metadata. */
export interface Emit<T = unknown> {
  event: T;
  meta: EmitMeta;
}

/**
 * Checks `$emit` metadata: `id` a string or number, `name` a channel name
 * ({@link validateChannelName}), `summary` a string, `ts` an integer (epoch ms). Returns the
 * problems, empty when valid.
 *
 * @example
 * ```ts
 * validateEmitMeta({ id: 1, ts: 1.5 }); // [{ code: "invalid_type", path: "ts", ... }]
 * ```
 */
export function validateEmitMeta(meta: unknown): Problem[] {
  if (meta === undefined || meta === null) return [];
  if (typeof meta !== "object" || Array.isArray(meta)) {
    return [problem("invalid_type", "", "emit metadata must be an object { id, name, summary, ts }")];
  }
  const m = meta as Record<string, unknown>;
  const problems: Problem[] = [];
  if (
    m.id !== undefined &&
    typeof m.id !== "string" &&
    !(typeof m.id === "number" && Number.isFinite(m.id))
  ) {
    problems.push(problem("invalid_type", "id", "id must be a string or a number"));
  }
  if (m.name !== undefined) problems.push(...validateChannelName(m.name));
  if (m.summary !== undefined && typeof m.summary !== "string") {
    problems.push(problem("invalid_type", "summary", "summary must be a string"));
  }
  if (m.ts !== undefined && !Number.isSafeInteger(m.ts)) {
    problems.push(problem("invalid_type", "ts", "ts must be an integer timestamp in epoch milliseconds"));
  }
  return problems;
}

/**
 * Throws `invalid_emit` when {@link validateEmitMeta} finds problems.
 *
 * @example
 * ```ts
 * assertEmitMeta({ name: "" }); // throws HooklineError invalid_emit
 * ```
 */
export function assertEmitMeta(meta: unknown): asserts meta is EmitMeta | undefined {
  const problems = validateEmitMeta(meta);
  if (problems.length > 0) {
    throw new HooklineError("invalid_emit", `Invalid $emit metadata: ${problems[0]?.message}`, { problems });
  }
}

/**
 * The channel a name means: an emit's `name`, a subscription's `eventName` or a workflow trigger's
 * `event_name`; absent (or null) is {@link DEFAULT_CHANNEL}. The one owner of the default channel.
 *
 * @example
 * ```ts
 * channelName(undefined); // "default"
 * channelName("orders"); // "orders"
 * ```
 */
export function channelName(name: string | null | undefined): string {
  return name ?? DEFAULT_CHANNEL;
}

/** The channel of an emit: its `name`, or {@link DEFAULT_CHANNEL} ({@link channelName}). */
export function channelOf(meta: EmitMeta | undefined): string {
  return channelName(meta?.name);
}

/**
 * Orders one invocation's emits as SPEC says: events with `ts` go oldest to newest. Events without
 * `ts` keep their positions; the events with `ts` are sorted among the positions they occupy. Stable.
 *
 * @example
 * ```ts
 * orderEmits([{ event: "b", meta: { ts: 2 } }, { event: "a", meta: { ts: 1 } }]); // a, b
 * ```
 */
export function orderEmits<T extends { meta?: EmitMeta | undefined }>(emits: readonly T[]): T[] {
  const slots: number[] = [];
  const timed: T[] = [];
  emits.forEach((emit, index) => {
    if (typeof emit.meta?.ts === "number") {
      slots.push(index);
      timed.push(emit);
    }
  });
  const sorted = timed
    .map((emit, order) => ({ emit, order }))
    .sort((a, b) => (a.emit.meta?.ts as number) - (b.emit.meta?.ts as number) || a.order - b.order)
    .map(({ emit }) => emit);
  const out = [...emits];
  slots.forEach((slot, i) => {
    out[slot] = sorted[i] as T;
  });
  return out;
}
