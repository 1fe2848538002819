import { cpSync } from "node:fs";
import { defineConfig } from "tsup";

const common = { format: "esm", sourcemap: true, target: "node20" } as const;

export default defineConfig([
  {
    ...common,
    entry: { index: "src/index.ts" },
    dts: true,
    clean: true,
    external: ["esbuild", "esbuild-wasm"],
    // The guest prelude is read at run time, next to the bundle (see src/sandbox/sandbox.ts).
    async onSuccess() {
      cpSync("src/sandbox/guest", "dist/guest", { recursive: true });
    },
  },
  {
    ...common,
    // The pool's worker threads start dist/pool-worker.js (see src/pool/worker-boot.ts): one file
    // with the packages it needs inside, so that a new thread does not import TypeBox's hundreds of
    // files (QuickJS finds its WebAssembly next to its own code; memfs loads on first use).
    entry: { "pool-worker": "src/pool/worker.ts" },
    external: ["esbuild", "esbuild-wasm", "quickjs-emscripten", "memfs"],
    noExternal: ["@hookline/core", "typebox", "cron-parser", "lru-cache"],
  },
]);
