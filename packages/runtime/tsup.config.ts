import { cpSync } from "node:fs";
import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
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
