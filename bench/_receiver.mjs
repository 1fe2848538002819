// A webhook receiver in its own process (as a user's server would be), so it does not share the
// benchmark's event loop. The parent sends { expect: n }; the receiver answers { count, latencies }
// once n requests arrived; to { count: true } it answers { received }. Bodies carrying `sentAt` (epoch ms, fractional) give latencies.
import { createServer } from "node:http";

let expected = Number.POSITIVE_INFINITY;
let latencies = [];
let count = 0;
const now = () => performance.timeOrigin + performance.now();
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    res.writeHead(200).end();
    count++;
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      if (typeof body.sentAt === "number") latencies.push(now() - body.sentAt);
    } catch {}
    if (count >= expected) {
      process.send({ count, latencies });
      expected = Number.POSITIVE_INFINITY;
    }
  });
});
process.on("message", (msg) => {
  if (msg.expect !== undefined) {
    expected = msg.expect;
    latencies = [];
    count = 0;
  }
  if (msg.count) process.send({ received: count });
  if (msg.stop) server.close(() => process.exit(0));
});
server.listen(0, "127.0.0.1", () => process.send({ port: server.address().port }));
