/**
 * npm run bench:hostile — how a real `pd serve` (sandboxes in its worker-thread pool, the default)
 * keeps answering while one component is hostile: for each kind (a loop the interrupt stops at the
 * deadline, a memory bomb, deep recursion, code the interrupt cannot stop), ten requests to the
 * hostile source are sent at once and, while they run, probes measure another source's endpoint, the
 * REST API and a webhook delivery (from the probe's request to the receiver's). Then 100 requests to
 * the uninterruptible component, each ending with its thread replaced: the server's OS threads and
 * RSS before and after. The server runs the built `dist` when it is current (`npm run build`).
 * One line per kind, then the last line:
 * `hostile: loop_p99_ms=<endpoint>/<api>/<delivery> bomb_p99_ms=... deep_p99_ms=... hang_p99_ms=...
 * replacements=<n> threads=<a>-><b> rss_mb=<a>-><b>` (target: every p99 under 50 ms, threads and
 * RSS stable).
 *
 * Env: BENCH_REPLACEMENTS (100); BENCH_DEBUG=1 prints every probe's endpoint time, in order.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FINE, HOSTILE, type HostileKind, hostile } from "../packages/cli/test/_hostile.js";

const REPLACEMENTS = Number(process.env.BENCH_REPLACEMENTS ?? 100);
const bin = fileURLToPath(new URL("../packages/cli/bin/pd.js", import.meta.url));

const p99 = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil(values.length * 0.99) - 1)] ?? 0;

/** Threads and RSS of one process, from /proc (Linux). */
function procStatus(pid: number): { threads: number; rssMb: number; comm: string } {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  return {
    threads: Number(/^Threads:\s+(\d+)/m.exec(text)?.[1]),
    rssMb: Number(/^VmRSS:\s+(\d+)/m.exec(text)?.[1]) / 1024,
    comm: /^Name:\s+(\S+)/m.exec(text)?.[1] ?? "",
  };
}

/**
 * The server's threads and RSS: `pd.js` runs the server itself (built dist) or in a child node
 * (sources); its other children (esbuild's service) are not the server. The largest node process.
 */
function status(pid: number): { threads: number; rssMb: number } {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // not Linux
  }
  const nodes = [pid, ...children].map(procStatus).filter((p) => p.comm === "node");
  return nodes.reduce((a, b) => (b.rssMb > a.rssMb ? b : a));
}

/** A loopback receiver: the `n` of each event body it got, with the time it arrived. */
async function receiver(): Promise<{ url: string; arrived: Map<number, number>; server: Server }> {
  const arrived = new Map<number, number>();
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => {
      body += d.toString();
    });
    req.on("end", () => {
      try {
        arrived.set((JSON.parse(body) as { n: number }).n, performance.now());
      } catch {
        // not one of ours
      }
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/h`, arrived, server };
}

/** Starts `pd serve` in memory with a short HTTP deadline; its URL and API key. */
async function serve(dir: string): Promise<{ child: ChildProcess; url: string; key: string }> {
  const child = spawn(
    process.execPath,
    [
      bin,
      ...["serve", "--memory", "--dev", "--port", "0", "--no-essentials", "--data-dir", dir],
      ...["--http-timeout", "500ms", "--sandbox-kill-after", "300ms", "--sandbox-threads", "2"],
      // The probes call the API more than 600 times a minute (the key's default limit).
      ...["--rate-limit", "off"],
    ],
    { stdio: ["ignore", "pipe", "inherit"], env: { ...process.env, NO_COLOR: "1" } },
  );
  let out = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      if (/API key:\s+hl_\S+/.test(out) && /listening on/.test(out)) resolve();
    });
    child.once("exit", (code) => reject(new Error(`pd serve exited with ${code}: ${out}`)));
  });
  return {
    child,
    url: /listening on (http:\/\/\S+)/.exec(out)?.[1] as string,
    key: /API key:\s+(hl_\S+)/.exec(out)?.[1] as string,
  };
}

const dir = mkdtempSync(join(tmpdir(), "hl-hostile-"));
const hook = await receiver();
const server = await serve(dir);
// A failure below must not leave the server running (it would load the next benchmark's machine).
process.on("exit", () => server.child.kill("SIGKILL"));
const api = async (path: string, body?: unknown) => {
  const res = await fetch(`${server.url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as { data: Record<string, unknown> };
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
};
const deploy = async (name: string, code: string) => {
  const data = await api("/v1/sources", { name, component_code: code });
  return { id: data.id as string, url: data.endpoint_url as string };
};

const fine = await deploy("fine", FINE);
const endpoints = {} as Record<HostileKind, string>;
for (const [kind, body] of Object.entries(HOSTILE))
  endpoints[kind as HostileKind] = (await deploy(kind, hostile(body))).url;
const webhook = await api("/v1/webhooks", { url: hook.url });
await api("/v1/subscriptions", { emitter_id: fine.id, listener_id: webhook.id });

let n = 0;
/** One probe: another source's endpoint, the REST API, the delivery of the event it emitted. */
async function probe(into: { endpoint: number[]; api: number[]; delivery: number[] }) {
  const id = ++n;
  const sent = performance.now();
  const res = await fetch(fine.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ n: id }),
  });
  await res.arrayBuffer();
  into.endpoint.push(performance.now() - sent);
  const t = performance.now();
  await api("/v1/sources");
  into.api.push(performance.now() - t);
  while (!hook.arrived.has(id)) {
    if (performance.now() - sent > 30_000) throw new Error(`event ${id} was not delivered`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  into.delivery.push((hook.arrived.get(id) as number) - sent);
}

/** Ten requests to the hostile endpoint at once, probing the rest until they have all ended. */
async function underAttack(kind: HostileKind, rounds = 1) {
  const into = { endpoint: [] as number[], api: [] as number[], delivery: [] as number[] };
  const answers = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    let done = false;
    const attack = Promise.all(
      Array.from({ length: 10 }, () =>
        fetch(endpoints[kind], { method: "POST", body: "{}" }).then(async (r) => {
          const code =
            r.status < 300 ? String(r.status) : `${r.status} ${/"code":"(\w+)"/.exec(await r.text())?.[1]}`;
          answers.set(code, (answers.get(code) ?? 0) + 1);
        }),
      ),
    ).finally(() => {
      done = true;
    });
    // Probe at least a few times, even when the attack ends sooner (deep recursion does).
    for (let i = 0; !done || i < 5; i++) {
      await probe(into);
      await new Promise((resolve) => setTimeout(resolve, 60)); // under the endpoint's 20/s limit
    }
    await attack;
  }
  if (process.env.BENCH_DEBUG) console.log(kind, into.endpoint.map((v) => v.toFixed(0)).join(" "));
  const figures = { endpoint: p99(into.endpoint), api: p99(into.api), delivery: p99(into.delivery) };
  console.log(
    `${kind}: ${10 * rounds} requests answered ${[...answers].map(([k, v]) => `${k} x${v}`).join(", ")}; ${into.api.length} probes; p99 endpoint ${figures.endpoint.toFixed(1)} ms, API ${figures.api.toFixed(1)} ms, delivery ${figures.delivery.toFixed(1)} ms`,
  );
  return `${figures.endpoint.toFixed(1)}/${figures.api.toFixed(1)}/${figures.delivery.toFixed(1)}`;
}

// Warm: JIT, sandboxes, the webhook's connection.
for (let i = 0; i < 20; i++) await probe({ endpoint: [], api: [], delivery: [] });
const lines: string[] = [];
for (const kind of ["loop", "bomb", "deep", "hang"] as const)
  lines.push(`${kind}_p99_ms=${await underAttack(kind)}`);
const before = status(server.child.pid as number);
await underAttack("hang", Math.ceil(REPLACEMENTS / 10));
const after = status(server.child.pid as number);
console.log(
  `${REPLACEMENTS} uninterruptible requests: threads ${before.threads} -> ${after.threads}, RSS ${before.rssMb.toFixed(0)} -> ${after.rssMb.toFixed(0)} MB`,
);
server.child.kill("SIGTERM");
hook.server.close();
rmSync(dir, { recursive: true, force: true });
console.log("targets: every p99 under 50 ms; threads and RSS stable over the replacements");
console.log(
  `hostile: ${lines.join(" ")} replacements=${REPLACEMENTS} threads=${before.threads}->${after.threads} rss_mb=${before.rssMb.toFixed(0)}->${after.rssMb.toFixed(0)}`,
);
