/** The bytes a delivery POSTs, and the excerpt of the answer it records. */
import type { StoredEvent } from "@hookline/store";
import { RESPONSE_EXCERPT_BYTES } from "./worker-types.js";

/**
 * Builds the request body POSTed for a delivery: the emitted event as JSON, unchanged (DESIGN.md,
 * "Delivery semantics"): the text the store kept (`payload`, the bytes the component emitted) when
 * it has one, else the body as JSON; `null` when it has no body. These exact bytes are what is
 * signed. The event's id travels in the `webhook-id` header, its channel in `x-hookline-event-name`.
 *
 * @param event - The stored event.
 * @param payload - The body's JSON text as stored (`ClaimedDelivery.payload`), when there is one.
 * @returns The JSON body.
 * @example
 * ```ts
 * buildPayload({ id: "evt_1", ts: 0, body: { a: 1 } }); // '{"a":1}'
 * buildPayload({ id: "evt_1", ts: 0, body: { a: 1 } }, '{ "a": 1.0 }'); // '{ "a": 1.0 }'
 * ```
 */
export function buildPayload(event: Pick<StoredEvent, "id" | "ts" | "body">, payload?: string): string {
  return payload ?? JSON.stringify(event.body ?? null);
}

/**
 * Truncates a response body to at most `maxBytes` bytes of UTF-8, never splitting a character.
 *
 * @param text - The response body.
 * @param maxBytes - The byte limit; {@link RESPONSE_EXCERPT_BYTES} by default.
 * @returns The excerpt.
 * @example
 * ```ts
 * truncateUtf8("é".repeat(3000)).length; // 2048
 * ```
 */
export function truncateUtf8(text: string, maxBytes: number = RESPONSE_EXCERPT_BYTES): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes so the cut falls on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}
