/** The sandbox's default limits (types.ts describes each). */
import type { Limits } from "../types.js";

/** The default limits of every invocation. */
export const DEFAULT_LIMITS: Limits = {
  runTimeoutMs: 30_000,
  httpTimeoutMs: 10_000,
  optionsTimeoutMs: 5_000,
  memoryBytes: 64 * 1024 * 1024,
  httpMemoryBytes: 32 * 1024 * 1024,
  resultBytes: 8 * 1024 * 1024,
  tmpBytes: 64 * 1024 * 1024,
};
