/**
 * What `createHookline()` (hookline.ts) builds from its options before it wires the modules: the
 * limits split between the sandbox and the engine, and the runtime, transport, delivery worker and
 * URL warner it makes when the embedder gave none. Each function resolves options only; none
 * starts anything.
 */
import { HooklineError } from "@hookline/core";
import {
  createDeliveryWorker,
  createTransport,
  type DeliveryWorker,
  type Transport,
} from "@hookline/delivery";
import { createRuntime, type Limits, type Runtime, type RuntimeOptions } from "@hookline/runtime";
import type { Store } from "@hookline/store";
import type { Emitter } from "mitt";
import type { Clock } from "./clock.js";
import type { HooklineEvents } from "./events.js";
import type { SecretBox } from "./secrets.js";
import { DEFAULT_ENGINE_LIMITS, type EngineLimits, type HooklineOptions } from "./types.js";
import { createUrlWarner } from "./webhooks.js";

/** The runtime's `mode` and `pool` options from `options.sandboxes`; replaced threads are told to `events`. */
function sandboxMode(
  sandboxes: HooklineOptions["sandboxes"],
  events: Emitter<HooklineEvents>,
): Pick<RuntimeOptions, "mode" | "pool"> {
  if (!sandboxes) return {};
  const { mode, ...pool } = sandboxes;
  const onThreadReplaced: NonNullable<typeof pool.onThreadReplaced> = (info) => {
    pool.onThreadReplaced?.(info);
    events.emit("sandbox", { change: "thread_replaced", ...info });
  };
  return { ...(mode ? { mode } : {}), ...(mode === "pool" ? { pool: { ...pool, onThreadReplaced } } : {}) };
}

/**
 * Splits `options.limits` into the engine's (the keys of {@link DEFAULT_ENGINE_LIMITS}, each a
 * positive integer, defaulted) and the sandbox's (the rest, or undefined when none is given).
 */
export function splitLimits(limits: HooklineOptions["limits"] = {}): {
  engine: EngineLimits;
  sandbox: Partial<Limits> | undefined;
} {
  const engine = { ...DEFAULT_ENGINE_LIMITS };
  const sandbox: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(limits)) {
    if (!Object.hasOwn(DEFAULT_ENGINE_LIMITS, name)) sandbox[name] = value;
    else if (value === undefined) continue;
    else if (!Number.isSafeInteger(value) || value < 1) {
      throw new HooklineError("bad_request", `limits.${name} must be a positive integer, got ${value}`);
    } else engine[name as keyof EngineLimits] = value;
  }
  return { engine, sandbox: Object.keys(sandbox).length > 0 ? (sandbox as Partial<Limits>) : undefined };
}

/** The runtime the engine makes (and closes) when `options.runtime` is not given. */
export function createRuntimeOf(
  options: HooklineOptions,
  sandboxLimits: Partial<Limits> | undefined,
  events: Emitter<HooklineEvents>,
): Runtime {
  return createRuntime({
    packages: options.packages ?? {},
    ...(sandboxLimits ? { limits: sandboxLimits } : {}),
    ...sandboxMode(options.sandboxes, events),
  });
}

/** The SSRF-guarded transport the engine makes (and closes) when `options.transport` is not given. */
export function createTransportOf(options: HooklineOptions): Transport {
  return createTransport({
    ...(options.allowPrivateUrls ? { allowPrivate: true } : {}),
    ...(options.allowList ? { allowList: options.allowList } : {}),
  });
}

/** What the delivery worker runs over. */
interface WorkerParts {
  store: Store;
  transport: Transport;
  box: SecretBox;
  clock: Clock;
  events: Emitter<HooklineEvents>;
}

/** The delivery worker (not started), or undefined when `options.worker` is `false`. */
export function createWorkerOf(
  options: HooklineOptions,
  { store, transport, box, clock, events }: WorkerParts,
): DeliveryWorker | undefined {
  if (options.worker === false) return undefined;
  const given = options.worker;
  return createDeliveryWorker({
    ...given,
    store,
    transport,
    decryptSecret: (v) => box.open(v),
    clock,
    // Metrics and logs hear every attempt (events.ts, `attempt`), after the embedder's hook.
    onAttempt: (report) => {
      try {
        if (given) given.onAttempt?.(report);
      } finally {
        events.emit("attempt", report);
      }
    },
  });
}

/** With its own transport the engine knows the SSRF guard's settings and warns of refused URLs. */
export function createUrlWarnerOf(options: HooklineOptions): (url: string) => Promise<string | undefined> {
  return createUrlWarner({
    allowPrivate: options.allowPrivateUrls === true,
    allowList: options.allowList ?? [],
  });
}
