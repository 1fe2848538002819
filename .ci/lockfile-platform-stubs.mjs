// The registry this project installs from mirrors only the Linux builds of packages that ship
// per-platform binaries as optional dependencies (rollup, biome, esbuild...). `npm install` then
// leaves the other platforms out of package-lock.json, and `npm ci` refuses the lockfile as
// "out of sync". This adds a stub entry (name, version, os/cpu/libc) for each missing optional
// dependency so `npm ci` sees a complete lockfile and skips the stubs as foreign platforms.
// Runs as the root `postinstall` script; idempotent.
import { readFileSync, writeFileSync } from "node:fs";

const file = new URL("../package-lock.json", import.meta.url);
const lock = JSON.parse(readFileSync(file, "utf8"));
const packages = lock.packages ?? {};
const OS = [
  "android",
  "darwin",
  "freebsd",
  "linux",
  "netbsd",
  "openbsd",
  "sunos",
  "win32",
  "aix",
  "openharmony",
  "cygwin",
];
const CPU = ["x64", "arm64", "arm", "ia32", "loong64", "ppc64", "riscv64", "s390x", "mips64el", "wasm32"];
let added = 0;

for (const [path, entry] of Object.entries(packages)) {
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) {
    const base = path === "" ? "" : `${path}/`;
    if (packages[`${base}node_modules/${name}`] || packages[`node_modules/${name}`]) continue;
    const parts = name.split(/[/-]/);
    const os = parts.find((part) => OS.includes(part)) ?? (name.includes("win32") ? "win32" : undefined);
    const cpu = parts.find((part) => CPU.includes(part)) ?? (name.includes("eabi") ? "arm" : undefined);
    if (!os || !/^\d+\.\d+\.\d+/.test(range)) continue; // only exact-version platform binaries
    const stub = { version: range, dev: entry.dev || undefined, optional: true, os: [os] };
    if (cpu) stub.cpu = [cpu];
    if (name.includes("musl")) stub.libc = ["musl"];
    else if (os === "linux" && name.includes("gnu")) stub.libc = ["glibc"];
    packages[`node_modules/${name}`] = stub;
    added++;
  }
}
if (added > 0) {
  lock.packages = Object.fromEntries(
    Object.entries(packages).sort(([a], [b]) => (a === "" ? -1 : b === "" ? 1 : a < b ? -1 : 1)),
  );
  writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
  console.log(`lockfile: added ${added} foreign-platform stub entries`);
}
