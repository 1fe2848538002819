import { defineConfig } from "tsup";

export default defineConfig({
  entry: {
    index: "src/index.ts",
    node: "src/adapters/node.ts",
    express: "src/adapters/express.ts",
    fastify: "src/adapters/fastify.ts",
    hono: "src/adapters/hono.ts",
    metrics: "src/metrics/index.ts",
  },
  external: ["express", "fastify", "hono"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
