import { existsSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Each package under packages/ is one vitest project, plus test/ for cross-package tests.
// Packages resolve each other's TypeScript sources through the "@hookline/source" export condition.
const conditions = ["@hookline/source", "node", "import", "module", "default"];
const packages = readdirSync("packages").filter((name) => existsSync(`packages/${name}/package.json`));

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ["@hookline/source"] } },
  test: {
    // Two files at a time even on a 2-core machine: most long files wait on child processes
    // (pd serve, browsers, receivers), so the default of one worker there leaves a core idle.
    maxWorkers: 2,
    // Timeouts catch hangs, not slowness: CI shares two cores between two files, their pd serve
    // children and a browser, where a spawned node process has taken more than vitest's 5 s.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // No process outlives a test file nor the run: see test/setup/ (leftovers are killed; the run
    // fails naming any that survived its files).
    globalSetup: [fileURLToPath(new URL("test/setup/global-processes.ts", import.meta.url))],
    setupFiles: [fileURLToPath(new URL("test/setup/file-processes.ts", import.meta.url))],
    projects: [
      ...packages.map((name) => ({
        extends: true as const,
        test: {
          name,
          root: `packages/${name}`,
          // A package's tests are in its test/ folder; `npm run lint:size` refuses one under src/.
          include: ["test/**/*.test.ts"],
        },
      })),
      {
        extends: true as const,
        test: { name: "e2e", root: "test", include: ["**/*.test.ts"] },
      },
    ],
  },
});
