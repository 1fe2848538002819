// Finding things in the web application, in Debian's chromium against a real server on loopback:
// a timer's next run (sources, workflows), the events search on the server (free text, a JSON
// filter, a bad filter's 422 message, an event older than the newest 100), the delivery-rate chart
// from the metrics endpoint with the numbers of known attempts (loaded only on the webhook page), a
// workflow's events, and replay. Every page is checked with axe (light and dark) and photographed
// into docs/ui/; the only console errors are Chrome's network lines of the two 422s provoked.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureUiBuilt } from "../ensure-built.js";
import { BROWSER_MISSING, type Browser, openBrowser } from "./_browser.js";
import { type Receiver, startReceiver, startServer, type TestServer } from "./_server.js";

const TICKER = `export default defineComponent({
  name: "Ticker", version: "1.0.0",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 900 } } },
  async run() { this.$emit({ tick: true }) },
})`;

const ORDERS = `export default defineComponent({
  name: "Orders", version: "1.0.0",
  props: { http: "$.interface.http" },
  async run(event) {
    const o = event.body;
    this.$emit(o, { summary: o.type + " " + o.customer.name + " " + o.total });
  },
})`;

const iso = (sec: number) => new Date(sec * 1000).toISOString();

describe.skipIf(BROWSER_MISSING !== undefined)("finding things in the web application", () => {
  let server: TestServer;
  let receiver: Receiver;
  let browser: Browser;

  beforeAll(async () => {
    await ensureUiBuilt();
    [server, receiver, browser] = await Promise.all([startServer(), startReceiver(200), openBrowser()]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([server?.close(), receiver?.close()]);
  });

  async function open(path: string): Promise<void> {
    const { page } = browser;
    await page.goto(`${server.base}${path}`);
    if (await page.getByLabel("API key").isVisible()) {
      await page.getByLabel("API key").fill(server.key);
      await page.getByRole("button", { name: "Sign in" }).click();
    }
  }

  async function order(url: string, type: string, name: string, total: number): Promise<void> {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type, customer: { name }, total }),
    });
    expect(res.status).toBe(200);
  }

  async function eventCount(sourceId: string): Promise<number> {
    let n = 0;
    let after = "";
    do {
      const res = await fetch(`${server.base}/v1/sources/${sourceId}/event_summaries?limit=100${after}`, {
        headers: { authorization: `Bearer ${server.key}` },
      });
      const body = (await res.json()) as { data: unknown[]; page_info: { end_cursor: string | null } };
      n += body.data.length;
      after = body.page_info.end_cursor ? `&after=${body.page_info.end_cursor}` : "";
    } while (after);
    return n;
  }

  it("shows a timer's next run, searches events on the server, charts deliveries from the metrics", async () => {
    const { page } = browser;

    // A timer source, a timer workflow and a workflow on the source's events.
    const ticker = await server.api("POST", "/v1/sources", {
      component_code: TICKER,
      name: "Ticker",
      configured_props: { timer: { intervalSeconds: 900 } },
    });
    expect(ticker.next_run_at).toBeGreaterThan(Date.now() / 1000 + 890);
    const step = [
      { name: "a", component_code: "export default defineComponent({ async run() { return 1 } })" },
    ];
    const weekly = await server.api("POST", "/v1/workflows", {
      name: "Monday report",
      trigger: { type: "timer", cron: "0 9 * * 1", timezone: "Europe/Paris" },
      steps: step,
    });
    await server.api("POST", "/v1/workflows", {
      name: "On tick",
      trigger: { type: "source", source_id: ticker.id },
      steps: step,
    });

    // /sources: the schedule, its next run (the time the API reports), the linked workflow.
    await open("/sources");
    const tickerRow = page.getByRole("row", { name: /Ticker/ });
    await tickerRow.getByText("Timer: every 15 minutes").waitFor();
    const next = tickerRow.locator(".next-run time");
    expect(await next.getAttribute("datetime")).toBe(iso(ticker.next_run_at));
    expect(await next.textContent()).toMatch(/^in 1[45] minutes$/);
    await tickerRow.getByRole("link", { name: "On tick" }).waitFor();
    // The chart is not part of the first load of /sources.
    const loaded = (await page.evaluate(
      `performance.getEntriesByType("resource").map((e) => e.name)`,
    )) as string[];
    expect(loaded.some((n) => /\/chart-[^/]*\.js$/.test(n))).toBe(false);
    await browser.capture("sources-timer");

    // /workflows: the cron workflow's next run (a Monday, 09:00 in Paris).
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workflows" }).click();
    const weeklyRow = page.getByRole("row", { name: /Monday report/ });
    const weeklyNext = weeklyRow.locator(".next-run time");
    await weeklyNext.waitFor();
    expect(await weeklyNext.getAttribute("datetime")).toBe(iso(weekly.next_run_at));
    expect(new Date(weekly.next_run_at * 1000).getUTCDay()).toBe(1);

    // An HTTP source with 103 orders: the oldest is beyond the newest 100 the page loads.
    const orders = await server.api("POST", "/v1/sources", { component_code: ORDERS, name: "Orders" });
    await order(orders.endpoint_url, "order.created", "Needle", 7);
    for (let i = 0; i < 99; i++) await order(orders.endpoint_url, "order.created", `Filler ${i}`, i % 50);
    await order(orders.endpoint_url, "order.created", "Ada", 120);
    await order(orders.endpoint_url, "order.refunded", "Grace", 30);
    await order(orders.endpoint_url, "order.created", "Linus", 80);
    await expect.poll(() => eventCount(orders.id), { timeout: 30_000 }).toBe(103);

    await open(`/sources/${orders.id}`);
    const count = page.getByTestId("event-count");
    await count.getByText("The newest 100 events, live").waitFor();
    const list = page.getByRole("list", { name: /events, newest first/i });
    expect(await list.getByRole("button", { name: /Needle/ }).count()).toBe(0);

    // Free text: matches on the server, beyond what the page loaded.
    const search = page.getByLabel("Search events");
    await search.fill("Grace");
    await count.getByText(/^1 matching event /).waitFor();
    expect(await list.getByRole("button").allTextContents()).toEqual([
      expect.stringContaining("order.refunded Grace 30"),
    ]);
    await search.fill("Needle");
    await list.getByRole("button", { name: /order.created Needle 7/ }).click();
    await page.getByRole("region", { name: "Event JSON" }).getByText('"name": "Needle"').waitFor();

    // A JSON filter in the advanced field, with the free text: both must hold.
    await search.fill("order.created");
    await page.getByText("Advanced search").click();
    const filter = page.getByLabel("Filter (JSON)");
    await filter.fill('{"event.total": {"$gte": 80}}');
    await count.getByText(/^2 matching events /).waitFor();
    expect(await list.getByRole("button").allTextContents()).toEqual([
      expect.stringContaining("Linus 80"),
      expect.stringContaining("Ada 120"),
    ]);
    await search.fill("");
    await filter.fill('{"event.type": "order.refunded"}');
    await count.getByText(/^1 matching event /).waitFor();
    await browser.capture("source-search");

    // Bad filters: the API's 422 message next to the box, and no results.
    await filter.fill('{"event.total": {"$gt": true}}');
    const refusal = page.getByRole("alert").filter({ hasText: "The server refused this search" });
    await refusal.getByText("filter.event.total.$gt: $gt takes a number or a string; got true").waitFor();
    expect(await filter.getAttribute("aria-invalid")).toBe("true");
    expect(await list.getByRole("button").count()).toBe(0);
    await filter.fill('{"event.total": ');
    await refusal.getByText(/not (valid )?JSON/i).waitFor();
    await browser.capture("source-search-error");
    await filter.fill("");
    await count.getByText("The newest 100 events, live").waitFor();
    expect(await refusal.count()).toBe(0);

    // Deliveries with known outcomes: two succeed, one fails (the test server does not retry).
    const hook = await server.api("POST", "/v1/webhooks", {
      url: `${receiver.url}/orders`,
      name: "Orders hook",
    });
    await server.api("POST", "/v1/subscriptions", { emitter_id: orders.id, listener_id: hook.id });
    await order(orders.endpoint_url, "order.created", "Edsger", 5);
    await order(orders.endpoint_url, "order.created", "Barbara", 6);
    await expect.poll(() => receiver.requests.length, { timeout: 30_000 }).toBe(2);
    receiver.status = 500;
    await order(orders.endpoint_url, "order.created", "Donald", 7);
    await expect.poll(() => receiver.requests.length, { timeout: 30_000 }).toBe(3);
    const metrics = await server.api("GET", `/v1/webhooks/${hook.id}/metrics?since=0`);
    await expect
      .poll(async () => (await server.api("GET", `/v1/webhooks/${hook.id}/metrics?since=0`)).attempts, {
        timeout: 30_000,
      })
      .toBe(3);

    await open(`/webhooks/${hook.id}`);
    await page
      .getByRole("img", {
        name: "Attempts per 2 h, last 24 hours: 3 attempts, 2 succeeded, 1 failed, success rate 66.7%.",
      })
      .waitFor({ timeout: 30_000 });
    const figures = page.getByTestId("webhook-metrics");
    const final = await server.api("GET", `/v1/webhooks/${hook.id}/metrics?since=0`);
    expect(final).toMatchObject({ attempts: 3, succeeded: 2, failed: 1 });
    expect(metrics.webhook_id).toBe(hook.id);
    const figure = async (name: string) =>
      (await figures
        .locator("div")
        .filter({ has: page.getByText(name, { exact: true }) })
        .locator("dd")
        .textContent()) ?? "";
    expect(await figure("Attempts")).toBe("3");
    expect(await figure("Succeeded")).toBe("2");
    expect(await figure("Failed")).toBe("1");
    expect(await figure("Success rate")).toBe("66.7%");
    for (const p of ["p50", "p95", "p99"] as const) expect(await figure(p)).toBe(`${final.latency_ms[p]} ms`);
    expect(await figure("By status")).toBe("2xx: 2, 5xx: 1");
    // One bar per 5 minutes over the last hour: the same numbers.
    await page.getByLabel("Window").selectOption("1h");
    await page
      .getByRole("img", { name: /^Attempts per 5 min, last hour: 3 attempts, 2 succeeded, 1 failed/ })
      .waitFor();
    expect(await page.locator(".chart rect.bar-bad").count()).toBe(1);
    const loadedNow = (await page.evaluate(
      `performance.getEntriesByType("resource").map((e) => e.name)`,
    )) as string[];
    expect(loadedNow.some((n) => /\/chart-[^/]*\.js$/.test(n))).toBe(true);
    await browser.capture("webhook-rate");

    const provoked = `${server.base}/sources/${orders.id}: Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)`;
    expect(browser.errors).toEqual([provoked, provoked]);
    browser.errors.length = 0;
    expect(browser.violations).toEqual([]);
  }, 240_000);

  it("searches a workflow's events and replays a run with an edited event", async () => {
    const { page } = browser;
    const workflow = await server.api("POST", "/v1/workflows", {
      name: "Echo",
      trigger: { type: "manual" },
      steps: [
        {
          name: "echo",
          component_code: `export default defineComponent({
            async run({ steps, $ }) {
              await $.send.emit({ raw_event: { word: steps.trigger.event.word } });
              return steps.trigger.event.word;
            },
          });`,
        },
        {
          name: "shout",
          component_code: `export default defineComponent({
            async run({ steps }) { return steps.echo.$return_value.toUpperCase(); },
          });`,
        },
      ],
    });
    await server.api("POST", `/v1/workflows/${workflow.id}/run`, { event: { word: "alpha" } });
    const beta = await server.api("POST", `/v1/workflows/${workflow.id}/run`, { event: { word: "beta" } });
    expect(beta.status).toBe("succeeded");

    // The workflow's events, searched (on the server when its event_summaries takes a filter).
    const openapi = (await (await fetch(`${server.base}/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: { name: string }[] }>>;
    };
    const serverSearch = (openapi.paths["/v1/workflows/{id}/event_summaries"]?.get?.parameters ?? []).some(
      (p) => p.name === "filter",
    );
    await open(`/workflows/${workflow.id}`);
    const events = page.getByRole("region", { name: "Events", exact: true });
    const list = events.getByRole("list", { name: /events, newest first/i });
    await list.getByRole("button").nth(1).waitFor();
    await events.getByLabel("Search events").fill("beta");
    await events
      .getByTestId("event-count")
      .getByText(/^1 (matching event|of the newest 2 events)/)
      .waitFor();
    expect(await list.getByRole("button").allTextContents()).toEqual([
      expect.stringContaining('"word":"beta"'),
    ]);
    await events.getByText("Advanced search").click();
    expect(await events.getByText("This server cannot search these events").count()).toBe(
      serverSearch ? 0 : 1,
    );
    await browser.capture("workflow-events");

    // Replay: the server's replay endpoint when it has one, else a new run with the (edited) event.
    const hasReplay = Object.keys(openapi.paths).some((p) => /\/executions\/\{[^}]+\}\/replay$/.test(p));
    await open(`/workflows/${workflow.id}?run=${beta.id}`);
    const run = page.getByRole("region", { name: /^Run exe_/ });
    await run.getByText("Replay…").click();
    if (hasReplay) await run.getByLabel("From step").waitFor();
    else await run.getByTestId("replay-fallback").waitFor();
    await run.getByLabel("Replay event (JSON)").fill('{"word": "gamma"}');
    await browser.capture("workflow-replay");
    await run.getByRole("button", { name: hasReplay ? "Replay" : "Replay with this event" }).click();
    await page.waitForURL((u) => !u.href.includes(beta.id) && /\?run=exe_/.test(u.href));
    await page
      .getByRole("region", { name: /^shout/ })
      .getByText('"GAMMA"')
      .waitFor();
    const replayed = new URL(page.url()).searchParams.get("run");
    const exe = await server.api("GET", `/v1/workflows/${workflow.id}/executions/${replayed}`);
    expect(exe.event).toEqual({ word: "gamma" });
    expect(exe.steps.map((s: { return_value: unknown }) => s.return_value)).toEqual(["gamma", "GAMMA"]);

    // A replay whose event is not JSON is refused in the page, and nothing runs.
    await run.getByText("Replay…").click();
    await page
      .getByRole("region", { name: /^Run exe_/ })
      .getByLabel("Replay event (JSON)")
      .fill("{oops");
    await page
      .getByRole("region", { name: /^Run exe_/ })
      .getByRole("button", { name: /^Replay/ })
      .click();
    await page.getByText("Replay failed: The event is not valid JSON").waitFor();
    const all = await server.api("GET", `/v1/workflows/${workflow.id}/executions`);
    expect(all.length).toBe(3);

    expect(browser.errors).toEqual([]);
    expect(browser.violations).toEqual([]);
  }, 120_000);

  it("subscribes a webhook with a filter and replays the history to it", async () => {
    const { page } = browser;
    receiver.status = 200;
    receiver.requests.length = 0;
    const shop = await server.api("POST", "/v1/sources", { component_code: ORDERS, name: "Shop" });
    await order(shop.endpoint_url, "order.created", "Small", 10);
    await order(shop.endpoint_url, "order.created", "Big", 500);
    await order(shop.endpoint_url, "order.refunded", "Huge", 900);
    await expect.poll(() => eventCount(shop.id), { timeout: 30_000 }).toBe(3);
    await server.api("POST", "/v1/webhooks", { url: `${receiver.url}/shop`, name: "Shop hook" });

    await open(`/sources/${shop.id}?tab=subscriptions`);
    await page.getByLabel("Webhook").selectOption({ label: `Shop hook (${receiver.url}/shop)` });
    // A filter the API refuses: its reason, naming the field.
    const filter = page.getByLabel("Only events matching (JSON filter, optional)", { exact: true });
    await filter.fill('{"event.total": {"$gte": "x", "$bogus": 1}}');
    await page.getByRole("button", { name: "Subscribe" }).click();
    await page
      .getByText(/filter\.event\.total\.\$bogus/)
      .first()
      .waitFor();
    // A good one: only big orders.
    await filter.fill('{"event.total": {"$gte": 100}}');
    await page.getByRole("button", { name: "Subscribe" }).click();
    await page.getByText('{"event.total":{"$gte":100}}').waitFor();

    // New events: only the big one is delivered.
    await order(shop.endpoint_url, "order.created", "Tiny", 1);
    await order(shop.endpoint_url, "order.created", "Large", 200);
    await expect.poll(() => receiver.requests.length, { timeout: 30_000 }).toBe(1);

    // Replay the history, only refunds: the subscription's filter and the replay's both apply.
    await page.getByText("Replay history to Shop hook…").click();
    await page
      .getByLabel("Replay only events matching (JSON filter, optional)")
      .fill('{"event.type": "order.refunded"}');
    await page.getByRole("button", { name: "Replay", exact: true }).click();
    await page.getByText("Replayed 1 event to Shop hook.").waitFor();
    await browser.capture("source-subscriptions-replay");
    await expect.poll(() => receiver.requests.length, { timeout: 30_000 }).toBe(2);
    const names = receiver.requests.map((r) => JSON.parse(r.body).customer.name);
    expect(names).toEqual(["Large", "Huge"]);

    const provoked = `${server.base}/sources/${shop.id}?tab=subscriptions: Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)`;
    expect(browser.errors).toEqual([provoked]);
    browser.errors.length = 0;
    expect(browser.violations).toEqual([]);
  }, 120_000);
});
