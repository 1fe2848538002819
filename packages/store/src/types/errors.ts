/**
 * The machine-readable reason of a {@link StoreError}. Every adapter throws the same code for the same
 * situation (the conformance suite checks it); an API maps each code to one documented error:
 *
 * - `not_found`: the record an operation needs does not exist (most reads answer `undefined` or
 *   `false` instead; this code is for writes that cannot proceed without it).
 * - `conflict`: a uniqueness rule refused the write (a taken slug, endpoint, id, API key hash, or a
 *   component key and version saved twice). Nothing was written.
 * - `invalid`: an argument the store cannot use, such as a malformed page cursor (`after=abc`) or an
 *   event body that is not JSON-serializable. {@link StoreError.field} names the argument. Nothing
 *   was written.
 * - `closed`: the store was closed; nothing more can be done with it.
 */
export type StoreErrorCode = "not_found" | "conflict" | "invalid" | "closed";

/**
 * An error thrown by a {@link Store}, with a machine-readable {@link StoreErrorCode} and, for
 * `invalid`, the argument at fault.
 *
 * @example
 * ```ts
 * try {
 *   await store.deployedComponents.create({ ...input, slug: "taken" });
 * } catch (error) {
 *   if (error instanceof StoreError && error.code === "conflict") console.log("slug in use");
 * }
 * ```
 */
export class StoreError extends Error {
  /** Why the operation failed. */
  readonly code: StoreErrorCode;
  /** The argument at fault (such as `after`, or `events[2].body`), when one is. */
  readonly field?: string;

  /**
   * @param code - Why the operation failed.
   * @param message - A human-readable description.
   * @param field - The argument at fault, if any.
   */
  constructor(code: StoreErrorCode, message: string, field?: string) {
    super(message);
    this.name = "StoreError";
    this.code = code;
    if (field !== undefined) this.field = field;
  }
}

/** A page of results and the cursor of the next page (absent on the last page). */
export interface Page<T> {
  /** The rows of this page. */
  items: T[];
  /** Pass as `before` (or `after` for oldest-first lists) to fetch the next page. */
  nextCursor?: string;
}
