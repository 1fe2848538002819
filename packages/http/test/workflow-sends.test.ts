// $.send.http, $.send.email and $.send.s3 from workflows run through REST, on PGlite: the request
// is retried by the delivery worker until the loopback receiver answers 2xx; email reaches a
// loopback SMTP server and S3 a loopback S3 stand-in; without a destination the step fails.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { PGlite } from "@electric-sql/pglite";
import { createS3Destination, createSmtpDestination } from "@hookline/delivery";
import { createSqlStore, pgliteClient } from "@hookline/store-sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startS3StandIn } from "../../delivery/test/stand-ins/s3.js";
import { type SmtpStandIn, startSmtpStandIn } from "../../delivery/test/stand-ins/smtp.js";
import { freshPglite } from "../../store-sql/test/fresh-pglite.js";
import { type Api, eventually, startApi } from "./_harness.js";

const credentials = { accessKeyId: "hookline", secretAccessKey: "s3cret" };
let api: Api;
let db: PGlite;
let smtp: SmtpStandIn;
let s3: Awaited<ReturnType<typeof startS3StandIn>>;
const received: { method: string; body: string; status: number }[] = [];
let receiverUrl = "";
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    // 503 twice, then 200: the request must be retried to get through.
    const status = received.length < 2 ? 503 : 200;
    received.push({ method: req.method ?? "", body: Buffer.concat(chunks).toString(), status });
    res.writeHead(status).end();
  });
});

beforeAll(async () => {
  smtp = await startSmtpStandIn();
  s3 = await startS3StandIn({ ...credentials, buckets: ["out"] });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/in`;
  db = await freshPglite();
  api = await startApi("node", {
    engine: {
      store: await createSqlStore(pgliteClient(db)),
      worker: { retrySchedule: [50, 50, 50], jitter: 0, pollIntervalMs: 50 },
      destinations: {
        email: createSmtpDestination({
          url: smtp.url(),
          from: "hookline@example.com",
          to: "ops@example.com",
        }),
        s3: createS3Destination({ ...credentials, endpoint: s3.endpoint, bucket: "out" }),
      },
    },
  });
  await api.hookline.start();
}, 60_000);

afterAll(async () => {
  await api?.close();
  await db?.close();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await smtp?.close();
  await s3?.close();
});

const code = (body: string) => `export default defineComponent({ async run({ steps, $ }) { ${body} } })`;

async function run(steps: { name: string; component_code: string }[], event: unknown) {
  const created = await api.call("POST", "/v1/workflows", {
    // retry count 0: a step whose send fails fails the run at once (step retries: durable-runs.test.ts).
    body: { name: "sends", trigger: { type: "manual" }, retry: { count: 0 }, steps },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = created.body.data.id as string;
  const res = await api.call("POST", `/v1/workflows/${id}/run`, { body: { event } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { id, execution: res.body.data };
}

describe("$.send.* through REST on PGlite", () => {
  it("$.send.http is retried until the receiver answers 2xx", async () => {
    const { id, execution } = await run(
      [
        {
          name: "notify",
          component_code: code(
            `$.send.http({ method: "POST", url: ${JSON.stringify(receiverUrl)}, data: { order: steps.trigger.event.order } })`,
          ),
        },
      ],
      { order: 9 },
    );
    expect(execution.status).toBe("succeeded");
    await eventually(async () => {
      const page = await api.hookline.store.deliveries.list(api.workspaceId, { webhookId: id });
      expect(page.items[0]).toMatchObject({ state: "succeeded", attempts: 3, eventId: execution.id });
    }, 30_000);
    expect(received.map((r) => r.status)).toEqual([503, 503, 200]);
    expect(received.every((r) => r.method === "POST" && r.body === '{"order":9}')).toBe(true);
  }, 60_000);

  it("$.send.email is received by the SMTP server and $.send.s3 stored by the S3 stand-in", async () => {
    const { execution } = await run(
      [
        {
          name: "out",
          component_code: code(
            `$.send.email({ subject: "Order " + steps.trigger.event.order, text: "paid" });
             $.send.s3({ prefix: "orders/", payload: steps.trigger.event });`,
          ),
        },
      ],
      { order: 10 },
    );
    expect(execution.status).toBe("succeeded");
    const mail = await smtp.next();
    expect(mail.headers.subject).toBe("Order 10");
    expect(mail.rcptTo).toEqual(["ops@example.com"]);
    expect(mail.headers["x-hookline-execution"]).toBe(execution.id);
    const object = s3.objects.at(-1);
    expect(object?.key).toMatch(/^orders\//);
    expect(JSON.parse(object?.body.toString() ?? "null")).toEqual({ order: 10 });
  }, 60_000);

  it("a bad $.send.http fails the step with invalid_send naming the field", async () => {
    const { execution } = await run(
      [{ name: "bad", component_code: code(`$.send.http({ url: "https://example.com", methd: "GET" })`) }],
      {},
    );
    expect(execution.status).toBe("failed");
    expect(execution.steps[0].error).toMatchObject({
      code: "invalid_send",
      message: expect.stringContaining('"methd" is not a field of $.send.http()'),
    });
  }, 60_000);
});
