// An HTTP load generator in its own process (as the callers of an endpoint would be), so it does not
// share the event loop of the server it measures. The parent sends { url, count, concurrency, body };
// it answers { perS, p50, p99, statuses, errors } once `count` requests were answered: each of
// `concurrency` loops POSTs, waits for the whole response, and POSTs again (keep-alive sockets).
import { Agent, request } from "node:http";

const agent = new Agent({ keepAlive: true, maxSockets: 1024 });

function post(url, body) {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        const chunks = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.on("error", (error) => resolve({ status: 0, body: String(error) }));
    req.end(body);
  });
}

process.on("message", async (msg) => {
  if (msg.stop) {
    agent.destroy();
    process.exit(0);
  }
  const { url, count, concurrency, body, expect } = msg;
  const latencies = [];
  const statuses = {};
  let errors = 0;
  let sample;
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const t = performance.now();
        const res = await post(url, body);
        latencies.push(performance.now() - t);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (expect !== undefined && res.body !== expect) {
          errors++;
          sample ??= `${res.status} ${res.body.slice(0, 300)}`;
        }
      }
    }),
  );
  const ms = performance.now() - started;
  latencies.sort((a, b) => a - b);
  const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))];
  process.send({ perS: count / (ms / 1000), p50: at(0.5), p99: at(0.99), statuses, errors, sample });
});
process.on("disconnect", () => process.exit(0));
process.send({ ready: true });
