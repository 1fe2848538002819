// Workflow requests ($.send.http) through the delivery worker: their own method, headers and body,
// retried on the schedule until the receiver answers 2xx, signed when they carry secrets.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryStore } from "@hookline/store";
import { afterEach, describe, expect, it } from "vitest";
import { generateWebhookSecret, verifyWebhook } from "../src/signature.js";
import { createTransport } from "../src/transport.js";
import { createDeliveryWorker } from "../src/worker.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver answering each request with the next status of `statuses` (the last one after). */
async function receiver(statuses: number[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      seen.push({
        method: req.method ?? "",
        path: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
      res.writeHead(statuses[Math.min(seen.length, statuses.length) - 1] ?? 200);
      res.end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/in?x=1`, seen };
}

function setup(retrySchedule = [1, 1, 1]) {
  const store = createMemoryStore();
  const transport = createTransport({ allowPrivate: true });
  const worker = createDeliveryWorker({
    store,
    transport,
    decryptSecret: (value) => value.replace(/^sealed:/, ""),
    retrySchedule,
    jitter: 0,
    pollIntervalMs: 5,
  });
  worker.start();
  cleanups.push(() => transport.close());
  cleanups.push(() => worker.stop({ drainMs: 0 }));
  return { store, worker };
}

/** Waits until `done`; the deadline only stops a hung test. */
async function until(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe("workflow requests through the delivery worker", () => {
  it("sends the step's method, headers and body, retried until the receiver answers 2xx", async () => {
    const target = await receiver([503, 500, 204]);
    const { store } = setup();
    const row = await store.queue.deliveries.enqueue({
      workspaceId: "ws_1",
      workflowId: "p_1",
      executionId: "exe_1",
      stepName: "post",
      request: {
        url: target.url,
        method: "PUT",
        headers: { "content-type": "application/json", "x-custom": "yes" },
        body: '{"a":1}',
      },
    });
    await until(async () => (await store.deliveries.get("ws_1", row.id))?.state === "succeeded");
    expect(target.seen).toHaveLength(3);
    for (const request of target.seen) {
      expect(request).toMatchObject({ method: "PUT", path: "/in?x=1", body: '{"a":1}' });
      expect(request.headers).toMatchObject({
        "content-type": "application/json",
        "x-custom": "yes",
        "user-agent": "Hookline-Workflows/1",
        "x-hookline-workflow-id": "p_1",
        "x-hookline-execution-id": "exe_1",
      });
      expect(request.headers["webhook-signature"]).toBeUndefined();
    }
    const attempts = await store.deliveries.listAttempts("ws_1", row.id);
    expect(attempts.map((a) => a.status)).toEqual([503, 500, 204]);
    expect(await store.deliveries.get("ws_1", row.id)).toMatchObject({ attempts: 3, lastStatus: 204 });
  });

  it("signs with the request's secrets; the webhook-id is the delivery's, stable across retries", async () => {
    const target = await receiver([500, 200]);
    const { store } = setup();
    const secret = generateWebhookSecret();
    const row = await store.queue.deliveries.enqueue({
      workspaceId: "ws_1",
      workflowId: "p_1",
      executionId: "exe_1",
      stepName: "post",
      request: { url: target.url, method: "POST", headers: {}, body: "hello", secrets: [`sealed:${secret}`] },
    });
    await until(async () => (await store.deliveries.get("ws_1", row.id))?.state === "succeeded");
    expect(target.seen).toHaveLength(2);
    for (const request of target.seen) {
      expect(request.headers["webhook-id"]).toBe(row.id);
      expect(() =>
        verifyWebhook(secret, request.headers as Record<string, string>, request.body),
      ).not.toThrow();
    }
  });

  it("fails after the schedule, and a 410 ends it at once, with no webhook touched", async () => {
    const failing = await receiver([500]);
    const gone = await receiver([410]);
    const { store } = setup([1]);
    const enqueue = (url: string) =>
      store.queue.deliveries.enqueue({
        workspaceId: "ws_1",
        workflowId: "p_1",
        executionId: "exe_1",
        stepName: "post",
        request: { url, method: "DELETE", headers: {} },
      });
    const a = await enqueue(failing.url);
    const b = await enqueue(gone.url);
    const final = async (id: string) => (await store.deliveries.get("ws_1", id))?.state === "failed";
    await until(async () => (await final(a.id)) && (await final(b.id)));
    expect(failing.seen.map((r) => r.method)).toEqual(["DELETE", "DELETE"]);
    expect(gone.seen).toHaveLength(1);
    expect(await store.deliveries.get("ws_1", b.id)).toMatchObject({
      lastStatus: 410,
      lastError: "http_410",
    });
  });
});
