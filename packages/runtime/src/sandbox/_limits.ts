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
  sockets: 16,
  socketsPerInvocation: 64,
  socketBytes: 64 * 1024 * 1024,
  socketIdleMs: 300_000,
  httpResponseBytes: 16 * 1024 * 1024,
};
