import { fileURLToPath } from "node:url";
import { defaultClientConditions, defineConfig } from "vite";

// The single-page app: sources in app/, built into dist/app (served by src/index.ts).
export default defineConfig({
  root: fileURLToPath(new URL("./app", import.meta.url)),
  base: "/",
  publicDir: false,
  // @hookline/core from its sources (the workflow editor uses its template and timer rules), so the
  // app builds without core's dist and bundles only what it imports.
  resolve: { conditions: ["@hookline/source", ...defaultClientConditions] },
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: fileURLToPath(new URL("./dist/app", import.meta.url)),
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 800,
  },
});
