/**
 * Loads and mounts in the pool wait their turn instead of failing (issue 34: "No sandbox thread is
 * free"): more loads than threads, some of which hang where the interrupt cannot stop them so that
 * their thread is replaced. Only the hanging loads fail; the others run once a thread is free, and
 * a wait past `pool.waitMs` fails with `service_unavailable`.
 */
import { describe, expect, it } from "vitest";
import type { PoolRuntime } from "../src/pool/pool-runtime.js";
import { testRuntime } from "./_helpers.js";

const HANG = "new Array(2 ** 32 - 1).join('');";
const hanging = (i: number) => ({
  filename: "hang.mjs",
  code: `${HANG}\nexport default { name: "Hang${i}", version: "0.1.0", type: "action", run() {} };`,
});
const fine = (i: number) => ({
  filename: "fine.mjs",
  code: `export default { name: "Fine${i}", version: "0.1.0", type: "action", run() { return ${i}; } };`,
});

describe("pool: loads wait their turn", () => {
  it("more loads than threads, some hanging: every other load and mount succeeds", {
    timeout: 60_000,
  }, async () => {
    const runtime = testRuntime({
      mode: "pool",
      pool: { size: 1, killAfterMs: 50 },
      // Long enough that a fine load never meets it on a loaded machine; the hanging ones always do.
      limits: { runTimeoutMs: 1000 },
    });
    try {
      const inputs = [hanging(0), fine(0), hanging(1), fine(1), hanging(2), fine(2)];
      const settled = await Promise.allSettled(inputs.map((input) => runtime.load(input)));
      const outcome = settled.map((s) =>
        s.status === "fulfilled" ? "loaded" : (s.reason as { code: string }).code,
      );
      expect(outcome.filter((_, i) => i % 2 === 1)).toEqual(["loaded", "loaded", "loaded"]);
      for (const i of [0, 2, 4]) expect(["load_failed", "internal_error"]).toContain(outcome[i]);
      // The loaded components mount and run on the replaced thread.
      const mounted = await Promise.all(
        settled
          .filter((s) => s.status === "fulfilled")
          .map((s, i) => runtime.mount({ id: `dc_fine${i}`, bundle: s.value.bundle, props: {} })),
      );
      expect(await Promise.all(mounted.map((m) => m.runAction().then((r) => r.returnValue)))).toEqual([
        0, 1, 2,
      ]);
      for (const m of mounted) m.dispose();
    } finally {
      await runtime.close();
    }
  });

  it("a load that waited past pool.waitMs fails with service_unavailable", { timeout: 30_000 }, async () => {
    const runtime = testRuntime({
      mode: "pool",
      pool: { size: 1, killAfterMs: 50, waitMs: 0 },
      limits: { runTimeoutMs: 150 },
    });
    try {
      // The hanging load holds the only thread before the other asks for one (bundling either may
      // end first, so they are not started together).
      const hangLoad = runtime.load(hanging(9));
      hangLoad.catch(() => undefined);
      const pool = runtime as unknown as PoolRuntime;
      while (pool.threads.inFlight === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const [hang, waiting] = await Promise.allSettled([hangLoad, runtime.load(fine(9))]);
      expect(hang.status).toBe("rejected");
      expect(waiting).toMatchObject({
        status: "rejected",
        reason: {
          code: "service_unavailable",
          message: "Every sandbox thread stayed busy for 0 ms: the component could not be loaded; try again",
        },
      });
    } finally {
      await runtime.close();
    }
  });
});
