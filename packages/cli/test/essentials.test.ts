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

describe("Hookline's essentials", () => {
  it("are three public components with their keys", async () => {
    const listed = await hookline.registry.list(user);
    expect(listed.map((c) => `${c.key}@${c.version} ${c.description.type}`).sort()).toEqual([
      "http-new-requests@0.1.0 source",
      "rss-new-item-in-feed@0.1.0 source",
      "schedule-custom-interval@0.1.0 source",
    ]);
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
