/**
 * Internal contract between the transport and the guarded fetch (not part of the public API).
 *
 * The transport sends through ky a body-less request plus `{ [RAW_OPTION]: { body } }`, which ky hands
 * on to its `fetch` as an option it does not know. The guarded fetch then sends `body` (a string the
 * caller already holds) as is, and resolves with a `Response` without a body stream whose text is
 * under {@link RAW_TEXT}. WHATWG body streams (created, teed by ky, read back) cost more CPU than the
 * HTTP request itself on the delivery hot path.
 */
export const RAW_OPTION = "hooklineRaw";

/** The value of the {@link RAW_OPTION} option. */
export interface RawRequest {
  /** The request body, sent as UTF-8. */
  body?: string;
}

/** Where a raw-mode `Response` carries its body, as text. */
export const RAW_TEXT: unique symbol = Symbol("hookline.rawText");

/** A `Response` resolved in raw mode. */
export type RawResponse = Response & { [RAW_TEXT]?: string };
