// The first hour in the web application (issue 36), in Debian's chromium against a real server whose
// SSRF guard refuses private addresses but loopback (allow-listed for the test's receiver): a deploy
// form that asks no account of an app that needs none, the SSRF warning of a private webhook URL,
// and a failing webhook whose page says what holds its deliveries, with its health, a test event
// and a link from each delivery to its event.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureUiBuilt } from "../ensure-built.js";
import { BROWSER_MISSING, type Browser, openBrowser } from "./_browser.js";
import { type Receiver, startReceiver, startServer, type TestServer } from "./_server.js";

const SCHEDULE = readFileSync(
  new URL("../../cli/registry/schedule/custom-interval.mjs", import.meta.url),
  "utf8",
);

const GITHUB = `export default {
  key: "github-demo-watch",
  name: "GitHub watch",
  version: "1.0.0",
  props: { github: { type: "app", app: "github" }, http: "$.interface.http" },
  async run(event) { this.$emit(event.body); },
};
`;

const ECHO = `export default {
  key: "http-echo",
  name: "Echo",
  version: "1.0.0",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event.body, { summary: "echo " + event.body.n }); },
};
`;

describe.skipIf(BROWSER_MISSING !== undefined)("the first hour in the web application", () => {
  let server: TestServer;
  let receiver: Receiver;
  let browser: Browser;

  beforeAll(async () => {
    await ensureUiBuilt();
    receiver = await startReceiver(500);
    // Loopback allowed (the receiver), other private addresses refused; a retry schedule and a
    // circuit that opens after two failures in a row and holds for a minute.
    [server, browser] = await Promise.all([
      startServer({
        allowPrivateUrls: false,
        allowList: ["127.0.0.1"],
        worker: {
          retrySchedule: [500, 500, 500, 500],
          pollIntervalMs: 100,
          circuitFailures: 2,
          circuitCooldownMs: 60_000,
        },
      }),
      openBrowser(),
    ]);
    for (const code of [SCHEDULE, GITHUB, ECHO]) {
      await server.api("POST", "/v1/components/registry", { component_code: code, visibility: "public" });
    }
    await browser.page.goto(`${server.base}/sources`);
    await browser.page.getByLabel("API key").fill(server.key);
    await browser.page.getByRole("button", { name: "Sign in" }).click();
    await browser.page.getByRole("heading", { name: "Sources" }).waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([server?.close(), receiver?.close()]);
  });

  it("asks no account of an app that needs none (schedule) and deploys; an app that needs one still asks", async () => {
    const { page } = browser;
    await page.goto(`${server.base}/sources?action=create&key=schedule-custom-interval`);
    await page.getByRole("heading", { name: "Deploy Custom Interval" }).waitFor();
    // The timer is asked (its legend "Schedule"); the `schedule` app prop is not.
    await page
      .getByRole("group", { name: /^Schedule/ })
      .getByLabel("Every N seconds")
      .waitFor();
    expect(await page.getByText(/schedule account/i).count()).toBe(0);
    expect(await page.getByLabel(/^schedule/).count()).toBe(0);
    await page.getByRole("button", { name: "Deploy" }).click();
    await page.waitForURL(/\/sources\/dc_[^/?]+$/);
    const sourceId = new URL(page.url()).pathname.split("/").pop() as string;
    expect((await server.api("GET", `/v1/sources/${sourceId}`)).active).toBe(true);

    await page.goto(`${server.base}/sources?action=create&key=github-demo-watch`);
    await page.getByRole("heading", { name: "Deploy GitHub watch" }).waitFor();
    await page.getByRole("button", { name: "Add github account" }).waitFor();
    await page.getByLabel(/^github/).waitFor();
    expect(browser.errors).toEqual([]);
  }, 60_000);

  it("shows the ssrf_blocked warning the API gives for a private webhook URL", async () => {
    const { page } = browser;
    await page.goto(`${server.base}/webhooks`);
    await page.getByLabel("URL").fill("http://10.1.2.3/hooks");
    await page.getByLabel("Name (optional)").fill("Private");
    await page.getByRole("button", { name: "Create webhook" }).click();
    await page.waitForURL(/\/webhooks\/wh_/);
    const warning = page.getByRole("alert").filter({ hasText: "ssrf_blocked" });
    await warning.getByText(/Deliveries to it will fail with ssrf_blocked/).waitFor();
    await browser.capture("webhook-ssrf-warning");
    // A loopback URL (allow-listed here) gets none.
    await page.goto(`${server.base}/webhooks`);
    await page.getByLabel("URL").fill(`${receiver.url}/ok`);
    await page.getByRole("button", { name: "Create webhook" }).click();
    await page.waitForURL(/\/webhooks\/wh_/);
    await page.getByRole("heading", { name: `${receiver.url}/ok` }).waitFor();
    expect(await page.getByRole("alert").filter({ hasText: "ssrf_blocked" }).count()).toBe(0);
    expect(browser.errors).toEqual([]);
    expect(browser.violations).toEqual([]);
  }, 60_000);

  it("a failing webhook: its health, the circuit holding a delivery and until when, a test event, the event's link", async () => {
    const { page } = browser;
    const source = await server.api("POST", "/v1/sources", { component_key: "http-echo", name: "Echo" });
    const webhook = await server.api("POST", "/v1/webhooks", {
      url: `${receiver.url}/hook`,
      name: "Failing",
    });
    await server.api("POST", "/v1/subscriptions", { emitter_id: source.id, listener_id: webhook.id });
    const res = await fetch(source.endpoint_url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ n: 1 }),
    });
    expect(res.status).toBe(200);

    // Two failed attempts open the circuit; the delivery stays pending, held until it closes.
    await page.goto(`${server.base}/webhooks/${webhook.id}`);
    const note = page.getByTestId("circuit-note");
    await note.waitFor({ timeout: 30_000 });
    expect(await note.textContent()).toMatch(/The circuit breaker holds this webhook's deliveries until/);
    const pending = page.locator('tbody[data-status="pending"]');
    await pending.getByText(/held by the circuit breaker until/).waitFor({ timeout: 30_000 });
    expect(await pending.textContent()).not.toMatch(/next .* ago/);
    await browser.capture("webhook-circuit");

    // The list says so too.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Webhooks" }).click();
    const row = page.getByRole("row", { name: /Failing/ });
    await row.getByText("circuit open").waitFor();
    expect(
      await page
        .getByRole("row", { name: /Private/ })
        .getByText("no failures")
        .count(),
    ).toBe(1);

    // A test event: what the receiver answers, now; then once it is fixed.
    await row.getByRole("link", { name: "Failing" }).click();
    const test = page.getByTestId("test-event");
    await test.getByRole("button", { name: "Send test event" }).click();
    await test.getByText(/failed: the receiver answered 500 \(http_500\)/).waitFor();
    receiver.status = 200;
    await test.getByRole("button", { name: "Send test event" }).click();
    await test.getByText(/the receiver answered 200 in \d+ ms/).waitFor();
    const tests = receiver.requests.filter((r) => r.body.includes('"hookline.test"'));
    expect(tests).toHaveLength(2);
    expect(JSON.parse(tests[1]?.body ?? "")).toMatchObject({ type: "hookline.test", webhook_id: webhook.id });

    // The Event column links to the event, shown in its source's inspector.
    const [delivery] = (await server.api("GET", `/v1/webhooks/${webhook.id}/deliveries`)) as Array<{
      event_id: string;
    }>;
    await page.getByRole("link", { name: delivery?.event_id ?? "?" }).click();
    await page.waitForURL(new RegExp(`/sources/${source.id}\\?tab=events&event=`));
    await page.getByRole("heading", { name: `Event ${delivery?.event_id}` }).waitFor();
    await page.getByRole("region", { name: "Event JSON" }).getByText('"n": 1').waitFor();
    expect(browser.errors).toEqual([]);
    expect(browser.violations).toEqual([]);
  }, 90_000);
});
