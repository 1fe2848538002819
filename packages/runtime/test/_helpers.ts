import { fileURLToPath } from "node:url";
import { createRuntime, type HostBridges, nodeModulesResolver, type Runtime } from "../src/index.js";

/** The repository root, whose node_modules holds the test dependencies. */
export const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/**
 * A runtime resolving npm packages from the repository. `HOOKLINE_TEST_SANDBOX_MODE=pool` runs the
 * tests that do not pick a mode with sandboxes in worker threads (the in-thread contract, both ways).
 */
export function testRuntime(options: Parameters<typeof createRuntime>[0] = {}): Runtime {
  const mode = process.env.HOOKLINE_TEST_SANDBOX_MODE as "thread" | "pool" | undefined;
  return createRuntime({
    resolvers: [nodeModulesResolver(REPO_ROOT)],
    ...(mode ? { mode } : {}),
    ...options,
  });
}

/** An in-memory db bridge that records every call. */
export function memoryDb(initial: Record<string, unknown> = {}) {
  const values = new Map(Object.entries(initial));
  const bridge: NonNullable<HostBridges["db"]> = {
    async entries() {
      return Object.fromEntries(values);
    },
    async write(writes) {
      for (const [key, value] of writes)
        if (value === undefined) values.delete(key);
        else values.set(key, value);
    },
  };
  return { values, bridge };
}

/** Loads and mounts `code` in one step. */
export async function mountCode(
  runtime: Runtime,
  code: string,
  props: Record<string, unknown> = {},
  bridges: HostBridges = {},
  filename = "component.mjs",
  files?: Record<string, string>,
) {
  const loaded = await runtime.load({ code, filename, ...(files ? { files } : {}) });
  return runtime.mount({ id: "dc_test", bundle: loaded.bundle, props, bridges });
}
