/** The engine's "not found" errors that several modules raise, each worded once. */
import { HooklineError } from "@hookline/core";

/**
 * The 404 of a saved component that is not in the workspace (`ref`: its id, or its key).
 *
 * @example
 * ```ts
 * throw componentNotFound("cmp_1"); // not_found: No component cmp_1 in this workspace
 * ```
 */
export function componentNotFound(ref: string | undefined): HooklineError {
  return new HooklineError("not_found", `No component ${ref} in this workspace`);
}
