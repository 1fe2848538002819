/**
 * Sandbox runtime benchmark: warm `run()` with one `$emit`, a run awaiting the db three times,
 * mounting a loaded component, and deploying new code (load + mount + deploy + activate), with
 * the same emit workload in `node:vm` and as a plain function as baselines.
 *
 * Run: `npm run bench:runtime`. The last line is machine-readable.
 */
import { cpus } from "node:os";
import { performance } from "node:perf_hooks";
import vm from "node:vm";
import { createRuntime, type HostBridges } from "@hookline/runtime";

const BATCHES = 7;

/** Median of `BATCHES` batches of `iterations` calls, in ms per call. */
async function measure(iterations: number, warmup: number, fn: (i: number) => unknown): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn(i);
  const perCall: number[] = [];
  let n = warmup;
  for (let b = 0; b < BATCHES; b++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) await fn(n++);
    perCall.push((performance.now() - start) / iterations);
  }
  perCall.sort((x, y) => x - y);
  return perCall[Math.floor(perCall.length / 2)] as number;
}

/** The same, for synchronous functions (no await per call). */
function measureSync(iterations: number, warmup: number, fn: (i: number) => unknown): number {
  for (let i = 0; i < warmup; i++) fn(i);
  const perCall: number[] = [];
  let n = warmup;
  for (let b = 0; b < BATCHES; b++) {
    const start = performance.now();
    for (let i = 0; i < iterations; i++) fn(n++);
    perCall.push((performance.now() - start) / iterations);
  }
  perCall.sort((x, y) => x - y);
  return perCall[Math.floor(perCall.length / 2)] as number;
}

function memoryDb(): NonNullable<HostBridges["db"]> {
  const values = new Map<string, unknown>([
    ["a", 1],
    ["b", { two: 2 }],
    ["c", "three"],
  ]);
  return {
    async entries() {
      return Object.fromEntries(values);
    },
    async set(key, value) {
      if (value === undefined) values.delete(key);
      else values.set(key, value);
    },
  };
}

const EMIT = `
export default {
  name: "Emit", version: "0.1.0", props: {},
  async run(event) { this.$emit({ n: event.n }, { id: event.n }); },
};`;

const AWAIT3 = `
export default {
  name: "Await3", version: "0.1.0",
  props: { db: "$.service.db" },
  async run(event) {
    const a = await this.db.get("a");
    const b = await this.db.get("b");
    const c = await this.db.get("c");
    return [a, b, c].length + event.n;
  },
};`;

const DEPLOY = (i: number) => `// deploy ${i}
export default {
  name: "Deploy", version: "0.1.0",
  props: { db: "$.service.db" },
  hooks: {
    async deploy() { this.db.set("deployed", true); this.$emit({ historical: 1 }); },
    async activate() { this.db.set("active", true); },
  },
  async run(event) { this.$emit(event); },
};`;

function check(result: { error?: { message: string } }): void {
  if (result.error) throw new Error(`benchmark component failed: ${result.error.message}`);
}

async function main(): Promise<void> {
  const runtime = createRuntime();

  // 1. warm emit
  const emit = await runtime.load({ code: EMIT, filename: "emit.mjs" });
  const emitMounted = await runtime.mount({ id: "dc_emit", bundle: emit.bundle, props: {} });
  const first = await emitMounted.run({ n: 0 });
  check(first);
  if (first.emits.length !== 1) throw new Error("the emit component did not emit");
  const warmEmitMs = await measure(2000, 2000, async (n) => check(await emitMounted.run({ n })));

  // 2. three awaited db reads
  const await3 = await runtime.load({ code: AWAIT3, filename: "await3.mjs" });
  const await3Mounted = await runtime.mount({
    id: "dc_await3",
    bundle: await3.bundle,
    props: {},
    bridges: { db: memoryDb() },
  });
  check(await await3Mounted.run({ n: 0 }));
  const await3Ms = await measure(1000, 1000, async (n) => check(await await3Mounted.run({ n })));

  // 3. mount (+ dispose) of an already-loaded component (its bundle and description, as the engine
  //    keeps them) in a fresh runtime
  const fresh = createRuntime();
  const mountMs = await measure(50, 20, async (i) => {
    const m = await fresh.mount({
      id: `dc_mount_${i}`,
      bundle: emit.bundle,
      description: emit.description,
      props: {},
    });
    m.dispose();
  });
  await fresh.close();

  // 4. deploy: load new code (bundle cache miss) + mount + deploy + activate
  const deployer = createRuntime();
  const deployMs = await measure(10, 5, async (i) => {
    const loaded = await deployer.load({ code: DEPLOY(i), filename: "deploy.mjs" });
    const m = await deployer.mount({
      id: `dc_deploy_${i}`,
      bundle: loaded.bundle,
      props: {},
      bridges: { db: memoryDb() },
    });
    check(await m.hook("deploy"));
    check(await m.hook("activate"));
    m.dispose();
  });
  await deployer.close();

  // 5. baselines: node:vm and a plain function
  const vmEmits: unknown[] = [];
  const context = vm.createContext({
    $emit(event: unknown, meta: unknown) {
      vmEmits.push({ event, meta });
    },
  });
  vm.runInContext(
    `globalThis.component = { run(event) { $emit({ n: event.n }, { id: event.n }); } };
     globalThis.invoke = (n) => component.run({ n });`,
    context,
  );
  const call = new vm.Script("invoke(n)");
  const vmMs = measureSync(20_000, 20_000, (n) => {
    context.n = n;
    call.runInContext(context);
    vmEmits.length = 0;
  });

  const plainEmits: unknown[] = [];
  const plain = {
    $emit(event: unknown, meta: unknown) {
      plainEmits.push({ event, meta });
    },
    run(event: { n: number }) {
      this.$emit({ n: event.n }, { id: event.n });
    },
  };
  const plainMs = measureSync(200_000, 200_000, (n) => {
    plain.run({ n });
    plainEmits.length = 0;
  });

  emitMounted.dispose();
  await3Mounted.dispose();
  await runtime.close();

  const us = (ms: number) => ms * 1000;
  const fmt = (n: number) => String(Math.round(n * 100) / 100);
  const vmRatio = warmEmitMs / vmMs;
  const rows: [string, string, string][] = [
    ["warm run() + $emit", `${fmt(us(warmEmitMs))} us`, "<= 30 us"],
    ["run() with 3 awaited db.get", `${fmt(us(await3Ms))} us`, "<= 100 us"],
    ["mount + dispose (loaded)", `${fmt(mountMs)} ms`, "<= 2 ms"],
    ["deploy (load+mount+deploy+activate)", `${fmt(deployMs)} ms`, "<= 50 ms"],
    ["node:vm emit (baseline)", `${fmt(us(vmMs))} us`, ""],
    ["plain function emit (baseline)", `${fmt(us(plainMs))} us`, ""],
    ["warm emit / node:vm", `${fmt(vmRatio)}x`, ""],
  ];
  const width = Math.max(...rows.map((r) => r[0].length));
  console.log(
    `Sandbox runtime (${cpus().length} cores, Node ${process.version}), median of ${BATCHES} batches`,
  );
  console.log(`${"measure".padEnd(width)}  ${"figure".padStart(12)}  target`);
  for (const [name, value, target] of rows)
    console.log(`${name.padEnd(width)}  ${value.padStart(12)}  ${target}`);
  console.log(
    `runtime: warm_emit_us=${fmt(us(warmEmitMs))} await3_us=${fmt(us(await3Ms))} mount_ms=${fmt(mountMs)} deploy_ms=${fmt(deployMs)} vm_ratio=${fmt(vmRatio)}`,
  );
}

await main();
