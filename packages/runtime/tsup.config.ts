import { cpSync } from "node:fs";
import { defineConfig } from "tsup";

export default defineConfig({
  // The pool's worker threads start dist/pool-worker.js (see src/pool/threads.ts).
  entry: { index: "src/index.ts", "pool-worker": "src/pool/worker.ts" },
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  external: ["esbuild", "esbuild-wasm"],
  // The guest prelude is read at run time, next to the bundle (see src/sandbox/sandbox.ts).
  async onSuccess() {
    cpSync("src/sandbox/guest", "dist/guest", { recursive: true });
  },
});
