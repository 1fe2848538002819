import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/account.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  platform: "browser",
  target: "es2020",
});
