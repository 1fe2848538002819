import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { basename } from "node:path";
import { createFakeClock, createHookline, type Hookline } from "@hookline/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { essentialsDir, folderComponentFiles } from "../src/_registry-import.js";

// The essentials, published publicly by one workspace and deployed by key from another, as a new
// server does with them (pd serve publishes them at start-up).
const clock = createFakeClock(Date.UTC(2026, 0, 1));
let hookline: Hookline;
let user = "";

let feedServer: Server;
let feedUrl = "";
let items = [
  { guid: "a", title: "First &amp; oldest", date: "Mon, 01 Dec 2025 10:00:00 GMT" },
  { guid: "b", title: "<![CDATA[Second]]>", date: "Tue, 02 Dec 2025 10:00:00 GMT" },
];
const rss = () =>
  `<?xml version="1.0"?><rss version="2.0"><channel><title>Feed</title>${items
    .map(
      (i) =>
        `<item><title>${i.title}</title><link>https://example.com/${i.guid}</link><guid>${i.guid}</guid><pubDate>${i.date}</pubDate></item>`,
    )
    .reverse()
    .join("")}</channel></rss>`;
const ATOM = `<feed xmlns="http://www.w3.org/2005/Atom"><title>A</title>
  <entry><title>Atom entry</title><link href="https://example.com/atom/1"/><id>urn:1</id><updated>2025-12-03T10:00:00Z</updated></entry>
</feed>`;

beforeAll(async () => {
  feedServer = createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/xml" }).end(req.url === "/atom" ? ATOM : rss());
  });
  await new Promise<void>((resolve) => feedServer.listen(0, "127.0.0.1", resolve));
  feedUrl = `http://127.0.0.1:${(feedServer.address() as AddressInfo).port}`;
  hookline = createHookline({ clock, allowPrivateUrls: true, worker: false, packages: { registry: false } });
  const publisher = await hookline.workspaces.create({ name: "registry" });
  user = (await hookline.workspaces.create({ name: "user" })).id;
  const dir = essentialsDir();
  for (const file of folderComponentFiles(dir))
    await hookline.registry.publish(publisher.id, {
      code: { code: readFileSync(file, "utf8"), filename: basename(file) },
      visibility: "public",
    });
});
afterAll(async () => {
  await hookline.close();
  await new Promise<void>((resolve) => feedServer.close(() => resolve()));
});

/** Every essential, `key@version type`. */
const ESSENTIALS = [
  "data_stores-get-record@0.1.0 action",
  "data_stores-set-record@0.1.0 action",
  "email-send-email@0.1.0 action",
  "formatting-format-text@0.1.0 action",
  "github-new-signed-event@0.1.0 source",
  "helper_functions-delay@0.1.0 action",
  "helper_functions-filter@0.1.0 action",
  "http-new-requests@0.1.0 source",
  "http-send-request@0.1.0 action",
  "rss-new-item-in-feed@0.1.0 source",
  "schedule-custom-interval@0.1.0 source",
  "shopify-new-signed-event@0.1.0 source",
  "stripe-new-signed-event@0.1.0 source",
];

describe("Hookline's essentials", () => {
  it("are public components with their keys", async () => {
    const listed = await hookline.registry.list(user);
    expect(listed.map((c) => `${c.key}@${c.version} ${c.description.type}`).sort()).toEqual(ESSENTIALS);
    // None breaks a registry rule; none asks for a connected account (a new install uses them as they are).
    for (const c of listed) expect(c.description.warnings ?? []).toEqual([]);
  });

  it("http-new-requests answers as configured and emits the request, or its body only", async () => {
    const source = await hookline.sources.deploy(user, { componentKey: "http-new-requests" });
    const reply = await hookline.ingress(source.endpointId as string, {
      method: "POST",
      path: "/hook",
      headers: { "content-type": "application/json" },
      body: '{"a":1}',
    });
    expect([reply.status, reply.headers["content-type"], String(reply.body)]).toEqual([
      200,
      "application/json",
      '{ "success": true }',
    ]);
    const bodyOnly = await hookline.sources.deploy(user, {
      componentKey: "http-new-requests",
      props: { emitBodyOnly: true, resStatusCode: "202", resContentType: "text/plain", resBody: "queued" },
    });
    const queued = await hookline.ingress(bodyOnly.endpointId as string, {
      method: "POST",
      path: "/",
      headers: { "content-type": "application/json" },
      body: '{"b":2}',
    });
    expect([queued.status, queued.headers["content-type"], String(queued.body)]).toEqual([
      202,
      "text/plain",
      "queued",
    ]);
    const [whole] = (await hookline.sources.events(user, source.id)).items;
    expect(whole).toMatchObject({
      summary: "POST /hook",
      body: { method: "POST", path: "/hook", body: { a: 1 } },
    });
    expect((await hookline.sources.events(user, bodyOnly.id)).items[0]?.body).toEqual({ b: 2 });
  });

  it("schedule-custom-interval emits the timer's event on its schedule", async () => {
    clock.set(Date.UTC(2026, 0, 1));
    const source = await hookline.sources.deploy(user, {
      componentKey: "schedule-custom-interval",
      props: { timer: { intervalSeconds: 60 } },
    });
    for (let i = 0; i < 4; i++) {
      clock.advance(30_000);
      await hookline.timers.tick();
    }
    const events = (await hookline.sources.events(user, source.id)).items.reverse();
    const start = Date.UTC(2026, 0, 1) / 1000;
    expect(events.map((e) => [e.body, e.summary])).toEqual([
      [{ timestamp: start + 60, interval_seconds: 60 }, "Scheduled at 2026-01-01T00:01:00.000Z"],
      [{ timestamp: start + 120, interval_seconds: 60 }, "Scheduled at 2026-01-01T00:02:00.000Z"],
    ]);
    await hookline.sources.delete(user, source.id);
  });

  it("rss-new-item-in-feed emits each item once, oldest first, on deploy and then on its timer; Atom too", async () => {
    clock.set(Date.UTC(2026, 0, 2));
    const source = await hookline.sources.deploy(user, {
      componentKey: "rss-new-item-in-feed",
      props: { url: `${feedUrl}/rss`, timer: { intervalSeconds: 60 } },
    });
    const bodies = async () =>
      (await hookline.sources.events(user, source.id)).items.reverse().map((e) => e.body as { id: string });
    expect(await bodies()).toEqual([
      {
        title: "First & oldest",
        link: "https://example.com/a",
        id: "a",
        date: "Mon, 01 Dec 2025 10:00:00 GMT",
      },
      { title: "Second", link: "https://example.com/b", id: "b", date: "Tue, 02 Dec 2025 10:00:00 GMT" },
    ]);
    items = [...items, { guid: "c", title: "Third", date: "Wed, 03 Dec 2025 10:00:00 GMT" }];
    clock.advance(61_000);
    await hookline.timers.tick();
    expect((await bodies()).map((b) => b.id)).toEqual(["a", "b", "c"]);
    clock.advance(61_000);
    await hookline.timers.tick();
    expect((await bodies()).map((b) => b.id)).toEqual(["a", "b", "c"]);
    await hookline.sources.delete(user, source.id);

    const atom = await hookline.sources.deploy(user, {
      componentKey: "rss-new-item-in-feed",
      props: { url: `${feedUrl}/atom` },
    });
    expect((await hookline.sources.events(user, atom.id)).items.map((e) => e.body)).toEqual([
      { title: "Atom entry", link: "https://example.com/atom/1", id: "urn:1", date: "2025-12-03T10:00:00Z" },
    ]);
  });
});

describe("Hookline's first-party webhooks and actions", () => {
  const hmac = (secret: string, text: string, encoding: "hex" | "base64") =>
    createHmac("sha256", secret).update(text).digest(encoding);
  const post = (endpointId: string, headers: Record<string, string>, body: string) =>
    hookline.ingress(endpointId, {
      method: "POST",
      path: "/",
      headers: { "content-type": "application/json", ...headers },
      body,
    });

  it("stripe, github and shopify webhooks emit only what their signature checks", async () => {
    clock.set(Date.now());
    const body = '{"id":"evt_1","type":"charge.succeeded","created":1767225600}';
    const stripe = await hookline.sources.deploy(user, {
      componentKey: "stripe-new-signed-event",
      props: { signingSecret: "whsec_test" },
    });
    const t = Math.floor(Date.now() / 1000);
    const good = await post(
      stripe.endpointId as string,
      { "stripe-signature": `t=${t},v1=${hmac("whsec_test", `${t}.${body}`, "hex")}` },
      body,
    );
    const forged = await post(
      stripe.endpointId as string,
      { "stripe-signature": `t=${t},v1=${hmac("other", `${t}.${body}`, "hex")}` },
      body,
    );
    const stale = await post(
      stripe.endpointId as string,
      { "stripe-signature": `t=${t - 3600},v1=${hmac("whsec_test", `${t - 3600}.${body}`, "hex")}` },
      body,
    );
    expect([good.status, forged.status, stale.status]).toEqual([200, 400, 400]);
    expect((await hookline.sources.events(user, stripe.id)).items.map((e) => e.summary)).toEqual([
      "charge.succeeded evt_1",
    ]);

    const github = await hookline.sources.deploy(user, {
      componentKey: "github-new-signed-event",
      props: { secret: "gh" },
    });
    const gh = '{"action":"opened","issue":{"number":1}}';
    const ghGood = await post(
      github.endpointId as string,
      {
        "x-hub-signature-256": `sha256=${hmac("gh", gh, "hex")}`,
        "x-github-event": "issues",
        "x-github-delivery": "d-1",
      },
      gh,
    );
    const ghBad = await post(
      github.endpointId as string,
      { "x-hub-signature-256": "sha256=00", "x-github-event": "issues" },
      gh,
    );
    expect([ghGood.status, ghBad.status]).toEqual([200, 401]);
    expect((await hookline.sources.events(user, github.id)).items.map((e) => e.summary)).toEqual([
      "issues opened",
    ]);

    const shopify = await hookline.sources.deploy(user, {
      componentKey: "shopify-new-signed-event",
      props: { secret: "sh" },
    });
    const order = '{"id":42}';
    const shGood = await post(
      shopify.endpointId as string,
      { "x-shopify-hmac-sha256": hmac("sh", order, "base64"), "x-shopify-topic": "orders/create" },
      order,
    );
    const shBad = await post(
      shopify.endpointId as string,
      { "x-shopify-hmac-sha256": hmac("no", order, "base64") },
      order,
    );
    expect([shGood.status, shBad.status]).toEqual([200, 401]);
    expect((await hookline.sources.events(user, shopify.id)).items.map((e) => [e.summary, e.body])).toEqual([
      ["orders/create", { id: 42 }],
    ]);
  });

  it("filter, format, data-store set and get, and an HTTP request run as workflow steps", async () => {
    const wf = await hookline.workflows.create(user, {
      name: "essentials",
      trigger: { type: "manual" },
      steps: [
        {
          name: "big",
          component_key: "helper_functions-filter",
          configured_props: {
            value: "{{steps.trigger.event.total}}",
            condition: "greater_than",
            compareTo: 10,
          },
        },
        {
          name: "slug",
          component_key: "formatting-format-text",
          configured_props: { input: "{{steps.trigger.event.title}}", operation: "slugify" },
        },
        {
          name: "save",
          component_key: "data_stores-set-record",
          configured_props: {
            dataStore: "orders",
            key: "{{steps.slug.$return_value}}",
            value: "{{steps.trigger.event}}",
          },
        },
        {
          name: "load",
          component_key: "data_stores-get-record",
          configured_props: { dataStore: "orders", key: "{{steps.slug.$return_value}}" },
        },
        {
          name: "fetch",
          component_key: "http-send-request",
          configured_props: { url: `${feedUrl}/rss`, method: "GET" },
        },
      ],
    });
    const ran = await hookline.workflows.test(user, wf.id, {
      event: { total: 12, title: "Crème Brûlée Order" },
    });
    expect(ran.status).toBe("succeeded");
    const byName = Object.fromEntries(ran.steps.map((s) => [s.name, s.returnValue]));
    expect(byName.slug).toBe("creme-brulee-order");
    expect(byName.load).toEqual({ total: 12, title: "Crème Brûlée Order" });
    expect(byName.fetch).toMatchObject({ status: 200, data: expect.stringContaining("<rss") });

    const small = await hookline.workflows.test(user, wf.id, { event: { total: 3, title: "x" } });
    expect(small.status).toBe("exited");
    expect(small.exitReason).toBe("Filter: 3 greater_than 10 is false");
    expect(small.steps.slice(1).map((s) => s.status)).toEqual(["skipped", "skipped", "skipped", "skipped"]);
  });

  it("delay pauses the run durably; send-email goes through the email destination", async () => {
    const wf = await hookline.workflows.create(user, {
      name: "later",
      trigger: { type: "manual" },
      steps: [
        {
          name: "wait",
          component_key: "helper_functions-delay",
          configured_props: { amount: 2, unit: "minutes" },
        },
        {
          name: "mail",
          component_key: "email-send-email",
          configured_props: { subject: "Hi", text: "Body" },
        },
      ],
    });
    const paused = await hookline.workflows.test(user, wf.id);
    expect(paused.status).toBe("delayed");
    expect(paused.steps[0]?.returnValue).toMatchObject({ delay_ms: 120_000 });
    // This server has no email destination: the send fails the step, naming why.
    const mail = await hookline.workflows.test(user, wf.id, { fromExecution: paused.id, fromStep: "mail" });
    expect(mail.status).toBe("failed");
    expect(mail.error?.code).toBe("destination_not_configured");
  });
});
