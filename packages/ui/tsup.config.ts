import { defineConfig } from "tsup";

// The server side (the fetch handler); `vite build` then writes the app into dist/app.
export default defineConfig({
  entry: { index: "src/index.ts" },
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
