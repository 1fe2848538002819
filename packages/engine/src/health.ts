/**
 * Readiness (`GET /readyz`): the store answers, its migrations are current, and this node's loops
 * (the delivery worker, the timer loop) run. Each check is bounded in time, so that a store that
 * hangs answers "not ready" instead of holding the load balancer's probe.
 */
import type { DeliveryWorker } from "@hookline/delivery";
import type { Store } from "@hookline/store";

/** One check of {@link HealthReport}. */
export interface HealthCheck {
  ok: boolean;
  /** Why it is not ok (or what it found). */
  detail?: string;
}

/** What `hookline.health()` answers. */
export interface HealthReport {
  /** True when every check is ok. */
  ready: boolean;
  checks: {
    /** The store answered (a small read). */
    store: HealthCheck;
    /** The store's schema has every migration this code knows. */
    migrations: HealthCheck;
    /** `start()` ran and the delivery worker runs (ok with `worker: false`: none is expected). */
    worker: HealthCheck;
  };
}

/** The longest a readiness check waits for the store, ms. */
export const HEALTH_TIMEOUT_MS = 2_000;

/** Rejects with `what` after `ms`. */
function bounded<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(what)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Checks the store, its migrations and the loops. @internal */
export async function checkHealth(
  store: Store,
  worker: DeliveryWorker | undefined,
  state: { started: boolean; closed: boolean },
  timeoutMs = HEALTH_TIMEOUT_MS,
): Promise<HealthReport> {
  const checks: HealthReport["checks"] = {
    store: { ok: true },
    migrations: { ok: true },
    worker: { ok: true },
  };
  try {
    const health = await bounded(
      store.health?.() ?? Promise.resolve({ pendingMigrations: [] }),
      timeoutMs,
      `the store did not answer within ${timeoutMs} ms`,
    );
    if (health.pendingMigrations.length > 0) {
      checks.migrations = {
        ok: false,
        detail: `migrations not applied: ${health.pendingMigrations.join(", ")}`,
      };
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    checks.store = { ok: false, detail: `the store is unreachable: ${message.slice(0, 200)}` };
    checks.migrations = { ok: false, detail: "unknown: the store is unreachable" };
  }
  if (state.closed) checks.worker = { ok: false, detail: "the engine is closed" };
  else if (!state.started) checks.worker = { ok: false, detail: "the engine is not started" };
  else if (worker && !worker.running) checks.worker = { ok: false, detail: "the delivery worker is stopped" };
  else if (!worker) checks.worker = { ok: true, detail: "no delivery worker on this node" };
  const ready = checks.store.ok && checks.migrations.ok && checks.worker.ok;
  return { ready, checks };
}
