// $.send.http, $.send.email and $.send.s3 from a workflow step, through the library API:
// http through the delivery worker (retried until the loopback receiver answers 2xx, signed),
// email to a loopback SMTP server, s3 to a loopback S3 stand-in; unconfigured destinations and
// bad payloads fail the step with a clear error.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import {
  createS3Destination,
  createSmtpDestination,
  generateWebhookSecret,
  verifyWebhook,
} from "@hookline/delivery";
import { createHookline, type Hookline } from "@hookline/engine";
import { afterEach, describe, expect, it } from "vitest";
import { startS3StandIn } from "../../../delivery/test/stand-ins/s3.js";
import { startSmtpStandIn } from "../../../delivery/test/stand-ins/smtp.js";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A loopback receiver answering with `statuses` in turn (the last one after). */
async function receiver(statuses: number[]): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      seen.push({ method: req.method ?? "", headers: req.headers, body: Buffer.concat(chunks).toString() });
      res.writeHead(statuses[Math.min(seen.length, statuses.length) - 1] ?? 200).end();
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
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, seen };
}

async function engine(options: Parameters<typeof createHookline>[0] = {}): Promise<Hookline> {
  const hookline = createHookline({
    allowPrivateUrls: true,
    worker: { retrySchedule: [50, 50, 50], jitter: 0, pollIntervalMs: 50 },
    ...options,
  });
  cleanups.push(() => hookline.close());
  await hookline.start();
  return hookline;
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const codeStep = (name: string, body: string) => ({
  name,
  component_code: `export default defineComponent({ async run({ steps, $ }) { ${body} } })`,
});

describe("$.send.* from a workflow step", () => {
  it("$.send.http is retried by the delivery worker until the receiver answers 2xx, signed", async () => {
    const target = await receiver([503, 500, 200]);
    const hookline = await engine();
    const ws = await hookline.workspaces.create({ name: "http" });
    const secret = generateWebhookSecret();
    const wf = await hookline.workflows.create(ws.id, {
      name: "post it",
      trigger: { type: "manual" },
      steps: [
        codeStep(
          "post",
          `$.send.http({ method: "PUT", url: ${JSON.stringify(target.url)}, params: { n: 1 },
             headers: { "x-step": "post" }, data: { order: steps.trigger.event.order },
             signing_secret: ${JSON.stringify(secret)} }); return "queued";`,
        ),
      ],
    });
    const exe = await hookline.workflows.run(ws.id, wf.id, { event: { order: 42 } });
    expect(exe.status).toBe("succeeded");
    await until(async () => target.seen.length >= 3, "three attempts");
    const deliveries = async () => (await hookline.store.deliveries.list(ws.id, { webhookId: wf.id })).items;
    await until(async () => (await deliveries())[0]?.state === "succeeded", "the request to succeed");
    const [delivery] = await deliveries();
    expect(delivery).toMatchObject({ emitterId: wf.id, eventId: exe.id, channel: "post", attempts: 3 });
    const attempts = await hookline.store.deliveries.listAttempts(ws.id, delivery!.id);
    expect(attempts.map((a) => a.status)).toEqual([503, 500, 200]);
    for (const request of target.seen) {
      expect(request).toMatchObject({ method: "PUT", body: '{"order":42}' });
      expect(request.headers).toMatchObject({
        "content-type": "application/json",
        "x-step": "post",
        "x-hookline-workflow-id": wf.id,
        "x-hookline-execution-id": exe.id,
        "webhook-id": delivery!.id,
      });
      verifyWebhook(secret, request.headers as Record<string, string>, request.body);
    }
    // The secret is stored sealed, never as given.
    expect(JSON.stringify(delivery)).not.toContain(secret);
  }, 60_000);

  it("$.send.http to a private address is refused by the SSRF guard unless allowPrivateUrls", async () => {
    const target = await receiver([200]);
    // The engine's defaults: no allowPrivateUrls, the guard on.
    const hookline = await engine({ allowPrivateUrls: undefined });
    const ws = await hookline.workspaces.create({ name: "guarded" });
    const wf = await hookline.workflows.create(ws.id, {
      name: "post inward",
      trigger: { type: "manual" },
      steps: [codeStep("post", `$.send.http({ url: ${JSON.stringify(target.url)}, data: { n: 1 } })`)],
    });
    const exe = await hookline.workflows.run(ws.id, wf.id);
    expect(exe.status).toBe("succeeded"); // queued: the step does not wait for the request
    const deliveries = async () => (await hookline.store.deliveries.list(ws.id, { webhookId: wf.id })).items;
    await until(async () => (await deliveries())[0]?.state === "failed", "the request to be refused");
    expect(await deliveries()).toMatchObject([{ state: "failed", lastError: "ssrf_blocked", attempts: 1 }]);
    expect(target.seen).toEqual([]);
  });

  it("$.send.email reaches a loopback SMTP server and $.send.s3 a loopback S3 stand-in", async () => {
    const smtp = await startSmtpStandIn();
    cleanups.push(() => smtp.close());
    const credentials = { accessKeyId: "hookline", secretAccessKey: "s3cret" };
    const s3 = await startS3StandIn({ ...credentials, buckets: ["out"] });
    cleanups.push(() => s3.close());
    const hookline = await engine({
      destinations: {
        email: createSmtpDestination({
          url: smtp.url(),
          from: "Hookline <hookline@example.com>",
          to: "owner@example.com",
          timeoutMs: 10_000,
        }),
        s3: createS3Destination({ ...credentials, endpoint: s3.endpoint, bucket: "out", timeoutMs: 10_000 }),
      },
    });
    const ws = await hookline.workspaces.create({ name: "dest" });
    const wf = await hookline.workflows.create(ws.id, {
      name: "notify",
      trigger: { type: "manual" },
      steps: [
        codeStep(
          "notify",
          `$.send.email({ subject: "Order " + steps.trigger.event.order, text: "Déjà payé ✅" });
           $.send.s3({ prefix: "orders/", payload: steps.trigger.event });`,
        ),
      ],
    });
    const exe = await hookline.workflows.run(ws.id, wf.id, { event: { order: 7 } });
    expect(exe.status).toBe("succeeded");
    const mail = await smtp.next();
    expect(mail.headers.subject).toBe("Order 7");
    expect(mail.text).toBe("Déjà payé ✅");
    expect(mail.rcptTo).toEqual(["owner@example.com"]);
    expect(mail.headers["x-hookline-workflow"]).toBe(wf.id);
    expect(mail.headers["x-hookline-execution"]).toBe(exe.id);
    expect(s3.objects).toHaveLength(1);
    expect(s3.objects[0]).toMatchObject({ bucket: "out", contentType: "application/json" });
    expect(s3.objects[0]?.key).toMatch(/^orders\/.+\.json$/);
    expect(JSON.parse(s3.objects[0]!.body.toString())).toEqual({ order: 7 });
  }, 60_000);

  it("an unconfigured destination or a bad payload fails the step with its code", async () => {
    const hookline = await engine();
    const ws = await hookline.workspaces.create({ name: "none" });
    const failing = async (body: string) => {
      const wf = await hookline.workflows.create(ws.id, {
        name: "w",
        trigger: { type: "manual" },
        retry: { count: 0 }, // a failing send fails the run at once (no retry)
        steps: [codeStep("send", body), codeStep("after", "return 1;")],
      });
      const exe = await hookline.workflows.run(ws.id, wf.id, { event: {} });
      expect(exe.status).toBe("failed");
      expect(exe.steps[1]?.status).toBe("skipped");
      return exe.steps[0]?.error;
    };
    expect(await failing(`$.send.email({ subject: "s", text: "t" })`)).toMatchObject({
      code: "destination_not_configured",
      message: expect.stringContaining("HOOKLINE_SMTP_URL"),
    });
    expect(await failing(`$.send.s3({ payload: 1 })`)).toMatchObject({ code: "destination_not_configured" });
    expect(await failing(`$.send.http({ url: "ftp://x", data: 1 })`)).toMatchObject({
      code: "invalid_send",
      message: expect.stringContaining("url must be an http or https URL"),
    });
  }, 60_000);
});
