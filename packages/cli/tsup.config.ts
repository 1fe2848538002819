import { defineConfig } from "tsup";

export default defineConfig([
  {
    entry: { bin: "src/bin.ts" },
    format: ["esm"],
    clean: true,
    sourcemap: true,
    target: "node20",
    banner: { js: "#!/usr/bin/env node" },
  },
  {
    entry: { index: "src/index.ts" },
    format: ["esm"],
    dts: true,
    sourcemap: true,
    target: "node20",
  },
]);
