/**
 * Stack overflows in a sandbox (issue 14): QuickJS's own limit, which gives the component a
 * catchable error with its lines, and the host's, which a built-in QuickJS does not count can
 * still reach.
 */
import type { InvocationError } from "../types.js";

/**
 * QuickJS's own stack limit. It measures the WebAssembly shadow stack, while the frames also use
 * the host thread's native stack (about 1 MB on Node's main thread): 256 KB (about 1,300 nested
 * calls of a small function) makes QuickJS throw its catchable `InternalError: stack overflow`
 * before the host's stack runs out, with the component's lines in the stack.
 */
export const STACK_BYTES = 256 * 1024;
/** Frames kept of a stack overflow's stack (its thousand identical lines say nothing more). */
const OVERFLOW_FRAMES = 12;

/**
 * Thrown when the host's own stack ran out inside QuickJS (recursion in a native built-in such as
 * `JSON.stringify` of a deeply nested value, which QuickJS does not count): that runtime is left
 * inconsistent, so it is dropped without being freed, and the module is discarded.
 */
export function isHostStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

export const HOST_OVERFLOW: InvocationError = {
  code: "stack_overflow",
  name: "RangeError",
  message:
    "stack overflow: the component nested calls or values too deeply (inside a built-in such as JSON.stringify, so no line is known)",
};

/**
 * QuickJS's `InternalError: stack overflow` (the component recursed past {@link STACK_BYTES}):
 * code `stack_overflow`, and the stack cut to its first frames, which name the component's line.
 */
export function overflowError(error: InvocationError): void {
  if (error.name !== "InternalError" || !/^stack overflow/.test(error.message)) return;
  error.code = "stack_overflow";
  error.message = "stack overflow: the component nested calls too deeply (infinite recursion?)";
  if (error.stack) {
    const frames = error.stack.split("\n").filter((line) => line.trim() !== "");
    const kept = frames.slice(0, OVERFLOW_FRAMES);
    if (frames.length > kept.length) kept.push(`    ... ${frames.length - kept.length} more frames`);
    error.stack = `${kept.join("\n")}\n`;
  }
}
