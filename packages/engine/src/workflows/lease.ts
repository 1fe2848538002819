/** A running execution's lease: how long a node holds it, and keeping it while its steps run. */
import type { Execution } from "@hookline/store";
import type { EngineContext } from "../context.js";
import { wfStores } from "./stores.js";

/** How long a node holds a running execution before another may take it over (renewed per step). */
export const EXECUTION_LEASE_MS = 5 * 60_000;

/**
 * Keeps the claim of a running execution: every third of the lease, while its steps run (however
 * long one step takes), the lease is extended by this node.
 */
export function keepLease(ctx: EngineContext, exe: Execution, leaseMs: number): { stop(): void } {
  const { executions } = wfStores(ctx.store);
  const timer = setInterval(
    () => {
      void executions
        .update(exe.workspaceId, exe.id, { leaseExpiresAt: ctx.clock.now() + leaseMs })
        .catch(() => undefined);
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  timer.unref?.();
  return { stop: () => clearInterval(timer) };
}
