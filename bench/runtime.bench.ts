/**
 * Sandbox runtime benchmark: warm `run()` with one `$emit`, a run awaiting the db three times,
 * mounting a loaded component, how late past its deadline a `while (true) {}` run ends, and
 * deploying new code (load + mount + deploy + activate), with
 * the same emit workload in `node:vm` and as a plain function as baselines. The first three are
 * measured in both modes: sandboxes in the calling thread and in the worker-thread pool (what
 * `pd serve` uses), and so are the three reads over a 1,000-key db; in the pool also the p99 of
 * another component's warm run while one component hangs in code the interrupt cannot stop, and
 * 100 thread replacements (`REPLACEMENTS=n` to change): time each, OS threads and RSS before and
 * after.
 *
 * Run: `npm run bench:runtime`. The last line is machine-readable.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import vm from "node:vm";
import { createRuntime, type HostBridges, type PoolRuntime, type Runtime } from "@hookline/runtime";

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

/** A db with a, b and c, and `extra` more keys of about 100 bytes each. */
function memoryDb(extra = 0): NonNullable<HostBridges["db"]> {
  const values = new Map<string, unknown>([
    ["a", 1],
    ["b", { two: 2 }],
    ["c", "three"],
  ]);
  for (let i = 0; i < extra; i++) values.set(`key-${i}`, { id: i, note: "x".repeat(80) });
  return {
    async entries() {
      return Object.fromEntries(values);
    },
    async write(writes) {
      for (const [key, value] of writes)
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

/** Array.prototype.join over a sparse array: QuickJS never checks the interrupt inside it. */
const HANG = `
export default {
  name: "Hang", version: "0.1.0", props: {},
  async run() { new Array(2 ** 32 - 1).join(""); },
};`;

/** A loop the interrupt stops at the run's deadline. */
const LOOP = `
export default {
  name: "Loop", version: "0.1.0", props: {},
  async run() { while (true) {} },
};`;

/** How long past its deadline (100 ms) a `while (true) {}` run ends: the median of 7, in ms. */
async function timeoutOvershoot(runtime: Runtime): Promise<number> {
  const loop = await runtime.load({ code: LOOP, filename: "loop.mjs" });
  const mounted = await runtime.mount({
    id: "dc_loop",
    bundle: loop.bundle,
    props: {},
    limits: { runTimeoutMs: 100 },
  });
  const overshoots: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    const result = await mounted.run({});
    if (result.error?.code !== "timeout") throw new Error("the loop did not time out");
    overshoots.push(performance.now() - t - 100);
  }
  mounted.dispose();
  overshoots.sort((a, b) => a - b);
  return overshoots[3] as number;
}

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

/** Warm emit, three awaited db reads and mount + dispose, in one mode. */
async function perMode(mode: "thread" | "pool") {
  const runtime: Runtime = createRuntime({ mode });

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
  const bigDb = await runtime.mount({
    id: "dc_await3_big",
    bundle: await3.bundle,
    props: {},
    bridges: { db: memoryDb(1000) },
  });
  check(await bigDb.run({ n: 0 }));
  const await3BigMs = await measure(200, 200, async (n) => check(await bigDb.run({ n })));
  bigDb.dispose();

  // 3. mount (+ dispose) of an already-loaded component (its bundle and description, as the engine
  //    keeps them) in a fresh runtime
  const fresh = createRuntime({ mode });
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

  // 3b. a loop stopped at its deadline: how late
  const overshootMs = await timeoutOvershoot(runtime);

  // 4. (pool) another component's warm run while one hangs where the interrupt cannot stop it
  let hangP99Ms: number | undefined;
  if (mode === "pool") {
    const hang = await runtime.load({ code: HANG, filename: "hang.mjs" });
    const hangMounted = await runtime.mount({
      id: "dc_hang",
      bundle: hang.bundle,
      props: {},
      limits: { runTimeoutMs: 1500 },
    });
    const hung = hangMounted.run({});
    await new Promise((resolve) => setTimeout(resolve, 50));
    const latencies: number[] = [];
    for (let n = 0; n < 400; n++) {
      const t = performance.now();
      check(await emitMounted.run({ n }));
      latencies.push(performance.now() - t);
    }
    if ((await hung).error?.code !== "timeout") throw new Error("the hanging component did not time out");
    latencies.sort((x, y) => x - y);
    hangP99Ms = latencies[Math.floor(latencies.length * 0.99)] as number;
    hangMounted.dispose();
  }

  // 5. (pool) thread replacements: OS threads, RSS and time per replacement
  const replacements = mode === "pool" ? await replacementsRun() : undefined;

  emitMounted.dispose();
  await3Mounted.dispose();
  await runtime.close();
  return { warmEmitMs, await3Ms, await3BigMs, mountMs, overshootMs, hangP99Ms, replacements };
}

/** The process's OS threads (Linux; 0 elsewhere). */
function osThreads(): number {
  try {
    return Number(/^Threads:\s+(\d+)/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * `REPLACEMENTS` (100) HTTP runs of a component the interrupt cannot stop, each ending with its
 * thread replaced (deadline 100 ms, kill margin 50 ms), after 10 of warm-up.
 */
async function replacementsRun() {
  const count = Number(process.env.REPLACEMENTS ?? 100);
  const runtime = createRuntime({
    mode: "pool",
    pool: { size: 2, killAfterMs: 50 },
    limits: { httpTimeoutMs: 100 },
  }) as PoolRuntime;
  const hang = await runtime.load({ code: HANG, filename: "hang.mjs" });
  const mounted = await runtime.mount({ id: "dc_replace", bundle: hang.bundle, props: {} });
  const once = async () => {
    const result = await mounted.run({}, { trigger: "http" });
    if (result.error?.code !== "timeout") throw new Error("the hanging component did not time out");
  };
  for (let i = 0; i < 10; i++) await once();
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = { threads: osThreads(), rss: process.memoryUsage().rss };
  const started = performance.now();
  for (let i = 0; i < count; i++) await once();
  const perMs = (performance.now() - started) / count;
  await new Promise((resolve) => setTimeout(resolve, 500));
  const after = { threads: osThreads(), rss: process.memoryUsage().rss, killed: runtime.threads.killed };
  await runtime.close();
  return { count, perMs, before, after };
}

async function main(): Promise<void> {
  const thread = await perMode("thread");
  const pool = await perMode("pool");
  const { warmEmitMs, await3Ms, mountMs } = thread;
  const r = pool.replacements;
  const mb = (bytes: number) => Math.round(bytes / 2 ** 20);

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

  const us = (ms: number) => ms * 1000;
  const fmt = (n: number) => String(Math.round(n * 100) / 100);
  const vmRatio = warmEmitMs / vmMs;
  const rows: [string, string, string][] = [
    ["warm run() + $emit", `${fmt(us(warmEmitMs))} us`, "<= 30 us"],
    ["run() with 3 awaited db.get", `${fmt(us(await3Ms))} us`, "<= 100 us"],
    ["mount + dispose (loaded)", `${fmt(mountMs)} ms`, "<= 2 ms"],
    [
      "pool: warm run() + $emit",
      `${fmt(us(pool.warmEmitMs))} us`,
      `<= 2x in-thread (${fmt(pool.warmEmitMs / warmEmitMs)}x)`,
    ],
    ["pool: run() with 3 awaited db.get", `${fmt(us(pool.await3Ms))} us`, "<= 100 us"],
    ["3 awaited db.get, 1,000-key db (~100 KB)", `${fmt(us(thread.await3BigMs))} us`, ""],
    ["pool: the same, 1,000-key db", `${fmt(us(pool.await3BigMs))} us`, ""],
    ["pool: mount + dispose (loaded)", `${fmt(pool.mountMs)} ms`, ""],
    ["while (true) {} ends past its deadline", `${fmt(thread.overshootMs)} ms`, "<= 100 ms"],
    ["pool: the same", `${fmt(pool.overshootMs)} ms`, "<= 100 ms"],
    ["pool: p99 warm run while another hangs", `${fmt(pool.hangP99Ms ?? 0)} ms`, "<= 50 ms"],
    [
      `pool: ${r?.count} thread replacements`,
      `${fmt(r?.perMs ?? 0)} ms`,
      `each; OS threads ${r?.before.threads} -> ${r?.after.threads}, RSS ${mb(r?.before.rss ?? 0)} -> ${mb(r?.after.rss ?? 0)} MB`,
    ],
    ["deploy (load+mount+deploy+activate)", `${fmt(deployMs)} ms`, "<= 50 ms"],
    ["node:vm emit (baseline)", `${fmt(us(vmMs))} us`, ""],
    ["plain function emit (baseline)", `${fmt(us(plainMs))} us`, ""],
    ["warm emit / node:vm", `${fmt(vmRatio)}x`, ""],
  ];
  const width = Math.max(...rows.map((r) => r[0].length));
  console.log(
    `Sandbox runtime (${cpus().length} cores, Node ${process.version}, load average ${loadavg()[0]?.toFixed(1)}), median of ${BATCHES} batches`,
  );
  console.log(`${"measure".padEnd(width)}  ${"figure".padStart(12)}  target`);
  for (const [name, value, target] of rows)
    console.log(`${name.padEnd(width)}  ${value.padStart(12)}  ${target}`);
  console.log(
    `runtime: warm_emit_us=${fmt(us(warmEmitMs))} await3_us=${fmt(us(await3Ms))} mount_ms=${fmt(mountMs)} deploy_ms=${fmt(deployMs)} vm_ratio=${fmt(vmRatio)} pool_warm_emit_us=${fmt(us(pool.warmEmitMs))} pool_await3_us=${fmt(us(pool.await3Ms))} pool_mount_ms=${fmt(pool.mountMs)} pool_hang_p99_ms=${fmt(pool.hangP99Ms ?? 0)} timeout_overshoot_ms=${fmt(thread.overshootMs)} pool_timeout_overshoot_ms=${fmt(pool.overshootMs)} await3_big_us=${fmt(us(thread.await3BigMs))} pool_await3_big_us=${fmt(us(pool.await3BigMs))} pool_replacement_ms=${fmt(r?.perMs ?? 0)} pool_replacement_threads=${r?.before.threads}->${r?.after.threads} pool_replacement_rss_mb=${mb(r?.before.rss ?? 0)}->${mb(r?.after.rss ?? 0)} load=${loadavg()[0]?.toFixed(1)}`,
  );
}

await main();
