import { cpSync } from "node:fs";
import { defineConfig } from "tsup";

export default defineConfig({
  // pglite-thread is an entry of its own: `pd serve` starts the thread before loading the rest.
  entry: ["src/index.ts", "src/pglite-thread.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  external: ["@electric-sql/pglite", "pg"],
  // openPgliteThread starts this plain-JavaScript file, next to the bundle (see src/pglite-thread.ts).
  async onSuccess() {
    cpSync("src/pglite-thread-worker.mjs", "dist/pglite-thread-worker.mjs");
  },
});
