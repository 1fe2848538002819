/**
 * npm run bench:delivery — emit-to-delivered throughput to a loopback receiver (memory store)
 * against a bare fetch (undici) POST loop to the same receiver, in the same run; and p99
 * emit-to-receive latency at 1,000 events/s. Last line:
 * `delivery: throughput_ratio=<x> p99_ms=<n>`.
 */
import { fork } from "node:child_process";
import { performance } from "node:perf_hooks";
import { createHookline } from "@hookline/engine";

const N = Number(process.env.BENCH_EVENTS ?? 4000);
const CONCURRENCY = 16;
/** Events per source run: a polling source typically emits a batch per run. */
const BATCH = 10;

const child = fork(new URL("./_receiver.mjs", import.meta.url));
const port = await new Promise<number>((resolve) =>
  child.once("message", (m: { port: number }) => resolve(m.port)),
);
const url = `http://127.0.0.1:${port}/hook`;
const epochNow = () => performance.timeOrigin + performance.now();
/** Resolves with the receiver's report once `count` requests arrived. */
const until = (count: number) =>
  new Promise<{ count: number; latencies: number[] }>((resolve) => {
    child.once("message", resolve);
    child.send({ expect: count });
  });

// Baseline: a bare POST loop with the same concurrency, no signing, no store.
async function baseline(): Promise<number> {
  const done = until(N);
  const body = JSON.stringify({ n: 0, payload: "x".repeat(100) });
  const started = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        next++;
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        });
        await res.arrayBuffer();
      }
    }),
  );
  await done;
  return N / ((performance.now() - started) / 1000);
}

const hookline = createHookline({
  allowPrivateUrls: true,
  secretsKey: "bench",
  worker: { concurrency: CONCURRENCY, perWebhookConcurrency: CONCURRENCY, pollIntervalMs: 50 },
});
hookline.start();
const ws = (await hookline.workspaces.create({ name: "bench" })).id;
const source = await hookline.sources.deploy(ws, {
  code: {
    code: `export default { name: "Bench", version: "0.1.0", props: { http: "$.interface.http" },
      run(e) { for (const item of e.body.items) this.$emit(item); } };`,
  },
});
const webhook = await hookline.webhooks.create(ws, { url });
await hookline.subscriptions.create(ws, { emitterId: source.id, listenerId: webhook.id });
const emit = (items: unknown[]) =>
  hookline.ingress(source.endpointId as string, {
    method: "POST",
    path: "/",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ items }),
  });

// Throughput: N events emitted (BATCH per request) as fast as the source runs, until all arrived.
async function hooklineThroughput(): Promise<number> {
  const done = until(N);
  const started = performance.now();
  for (let i = 0; i < N; i += BATCH) {
    await emit(Array.from({ length: BATCH }, (_, j) => ({ n: i + j, payload: "x".repeat(100) })));
  }
  await done;
  return N / ((performance.now() - started) / 1000);
}

// Latency: 1,000 events/s for 3 s (a batch of BATCH every BATCH ms); each event carries its emit time.
async function latencyP99(): Promise<number> {
  const count = 3000;
  const report = until(count);
  const start = performance.now();
  const emits: Promise<unknown>[] = [];
  for (let i = 0; i < count; i += BATCH) {
    const wait = start + i - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    const sentAt = epochNow();
    emits.push(emit(Array.from({ length: BATCH }, (_, j) => ({ n: i + j, sentAt }))));
  }
  await Promise.all(emits);
  const latencies = (await report).latencies.sort((a, b) => a - b);
  return latencies[Math.floor(latencies.length * 0.99)] ?? Number.NaN;
}

await baseline(); // warm up sockets and the JIT
await hooklineThroughput();
const base = await baseline();
const ours = await hooklineThroughput();
const p99 = await latencyP99();
const ratio = ours / base;

console.log(`events per run:          ${N}`);
console.log(`bare POST loop:          ${base.toFixed(0)} req/s (concurrency ${CONCURRENCY})`);
console.log(
  `emit -> delivered:       ${ours.toFixed(0)} events/s (memory store, signed, recorded; ${BATCH} emits per run)`,
);
console.log(`p99 emit -> receive:     ${p99.toFixed(2)} ms at 1,000 events/s`);
console.log(`targets: throughput_ratio >= 0.5, p99 < 25 ms`);
await hookline.close();
child.send({ stop: true });
console.log(`delivery: throughput_ratio=${ratio.toFixed(2)} p99_ms=${p99.toFixed(2)}`);
