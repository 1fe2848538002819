// The web application in Debian's chromium against a real server on loopback, as a user drives it:
// the deploy link of a registry component, the prop form, deploy, a live event in the inspector,
// Configuration, a failed delivery retried, and delete; a workflow run and its steps. Every page is checked with axe (light and
// dark) and photographed into docs/ui/; no test may log a console error.
import type { Locator } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureUiBuilt } from "../ensure-built.js";
import { BROWSER_MISSING, type Browser, openBrowser } from "./_browser.js";
import { type Receiver, startReceiver, startServer, type TestServer } from "./_server.js";

const GREETER = `export default {
  key: "http-greeter",
  name: "Greeter",
  version: "1.0.0",
  description: "Greets whoever calls its endpoint",
  props: {
    http: { type: "$.interface.http" },
    greeting: { type: "string", label: "Greeting", description: "How to greet" },
    times: { type: "integer", label: "Times", optional: true, default: 1, min: 1, max: 5 },
  },
  async run(event) {
    const name = (event.body && event.body.name) || "nobody";
    console.log("greeting " + name);
    this.$emit({ greeting: this.greeting, name, times: this.times }, { summary: this.greeting + " " + name });
  },
};
`;

describe.skipIf(BROWSER_MISSING !== undefined)("the web application in chromium", () => {
  let server: TestServer;
  let receiver: Receiver;
  let browser: Browser;

  beforeAll(async () => {
    await ensureUiBuilt();
    [server, receiver, browser] = await Promise.all([startServer(), startReceiver(500), openBrowser()]);
    await server.api("POST", "/v1/components/registry", { component_code: GREETER, visibility: "public" });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([server?.close(), receiver?.close()]);
  });

  /**
   * Waits for `locator` while moving the page's clock on by `stepMs` at a time (the clock runs as
   * usual otherwise), so that the app's next poll (the deliveries every 3 s, the delivery chart every
   * 10 s) comes at once instead of on its schedule. Needs `page.clock.install()` before the page
   * loads.
   */
  async function polled(locator: Locator, stepMs: number): Promise<void> {
    const shown = async () => {
      if ((await locator.count()) > 0 && (await locator.first().isVisible())) return true;
      await browser.page.clock.fastForward(stepMs);
      return false;
    };
    await expect.poll(shown, { timeout: 45_000, interval: 500 }).toBe(true);
    await locator.waitFor(); // as before: exactly one match, visible
  }

  /** POSTs to the source's endpoint as a third party would. */
  async function callEndpoint(url: string, name: string): Promise<void> {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name }),
    });
    expect(res.status).toBe(200);
  }

  it("deploys from a deploy link, shows events live, updates the configuration, retries a failed delivery and deletes", async () => {
    const { page } = browser;
    const nav = (name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name });

    // The deploy link asks for the API key first, then opens the form of that registry component.
    await page.goto(`${server.base}/sources?action=create&key=http-greeter`);
    await page.getByLabel("API key").waitFor();
    await browser.capture("login");
    await page.getByLabel("API key").fill(server.key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Deploy Greeter" }).waitFor();
    await browser.capture("deploy-form");

    // The prop form: labels from the props; deploy without the required prop shows it next to the prop.
    await page.getByLabel("Source name").fill("My greeter");
    await page.getByLabel(/^Greeting/).fill("Hello");
    await page.getByLabel(/^Times/).fill("2");
    await page.getByRole("button", { name: "Deploy" }).click();
    await page.waitForURL(/\/sources\/dc_[^/?]+$/);
    const sourceId = new URL(page.url()).pathname.split("/").pop() as string;
    await page.getByRole("heading", { name: "My greeter" }).waitFor();
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
    const source = await server.api("GET", `/v1/sources/${sourceId}`);
    expect(source.configured_props).toMatchObject({ greeting: "Hello", times: 2 });

    // A request to the endpoint appears live; the inspector shows its JSON and metadata.
    await callEndpoint(source.endpoint_url, "Ada");
    const row = page.getByRole("button", { name: /Hello Ada/ });
    await row.click();
    const inspector = page.getByRole("region", { name: "Event JSON" });
    await inspector.getByText('"greeting": "Hello"').waitFor();
    await page.getByRole("heading", { name: /^Event evt_/ }).waitFor();
    await browser.capture("source-events");

    // Logs: what run() printed.
    await page.getByRole("tab", { name: "Logs" }).click();
    await page.getByText("greeting Ada").waitFor();
    await browser.capture("source-logs");

    // Configuration: the code in the editor and the prop form; Update keeps the dc_ id.
    await page.getByRole("tab", { name: "Configuration" }).click();
    await page.getByRole("textbox", { name: "Code of My greeter" }).waitFor();
    await page.getByText("Greets whoever calls its endpoint").first().waitFor();
    const greeting = page.getByLabel(/^Greeting/);
    expect(await greeting.inputValue()).toBe("Hello");
    await browser.capture("source-configuration");
    await greeting.fill("Bonjour");
    await page.getByRole("button", { name: "Update" }).click();
    await page.getByText(`Updated. The source keeps its id ${sourceId}.`).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/sources/${sourceId}`);

    // The next event reflects the new prop value.
    await page.getByRole("tab", { name: "Events" }).click();
    await page.getByRole("status").filter({ hasText: "Live" }).waitFor();
    await callEndpoint(source.endpoint_url, "Grace");
    await page.getByRole("button", { name: /Bonjour Grace/ }).waitFor();

    // Edited code: Update saves it as a new component under the same source id.
    await page.getByRole("tab", { name: "Configuration" }).click();
    const editor = page.getByRole("textbox", { name: "Code of My greeter" });
    await editor.click();
    await page.keyboard.press("Control+End");
    await page.keyboard.type("\n// edited in the browser\n");
    await page.getByText("component.mjs · edited").waitFor();
    await page.getByRole("button", { name: "Update" }).click();
    await page.getByText("component.mjs · edited").waitFor({ state: "detached" });
    const edited = await server.api("GET", `/v1/sources/${sourceId}`);
    expect(edited.component_id).not.toBe(source.component_id);
    expect((await server.api("GET", `/v1/components/${edited.component_id}/code`)).code).toContain(
      "// edited in the browser",
    );
    await page.getByRole("tab", { name: "Events" }).click();

    // A webhook for the loopback receiver (which answers 500 for now), created in the UI.
    await nav("Webhooks").click();
    await page.getByRole("heading", { name: "Webhooks" }).waitFor();
    await page.getByLabel("URL").fill(`${receiver.url}/hook`);
    await page.getByLabel("Name (optional)").fill("Receiver");
    await page.getByRole("button", { name: "Create webhook" }).click();
    await page.waitForURL(/\/webhooks\/wh_/);
    const webhookPath = new URL(page.url()).pathname;
    await page.getByRole("button", { name: "Reveal secret" }).click();
    const firstSecret = await page.getByTestId("webhook-secret").textContent();
    expect(firstSecret).toMatch(/^whsec_/);
    await page.getByRole("button", { name: "Rotate secret" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Rotate secret" }).click();
    await page.getByText("Secret rotated. The previous one stays valid for 24 hours.").waitFor();
    const rotated = await page.getByTestId("webhook-secret").textContent();
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(firstSecret);

    // Subscribe the source to it from the source's Subscriptions tab.
    await page.goto(`${server.base}/sources/${sourceId}?tab=subscriptions`);
    await page.getByLabel("Webhook").selectOption({ label: `Receiver (${receiver.url}/hook)` });
    await page.getByRole("button", { name: "Subscribe" }).click();
    await page.getByRole("button", { name: "Unsubscribe Receiver" }).waitFor();
    await browser.capture("source-subscriptions");

    // The list, loaded afresh: under 200 KB of JavaScript over the wire (compressed) on first load.
    // (Weighed here: the page's clock, installed below, replaces the `performance` it reads.)
    await page.goto(`${server.base}/sources`);
    const scriptBytes = (await page.evaluate(
      `performance.getEntriesByType("resource").filter((e) => e.initiatorType === "script" || e.name.endsWith(".js")).reduce((n, e) => n + e.encodedBodySize, 0)`,
    )) as number;
    expect(scriptBytes).toBeGreaterThan(1000);
    expect(scriptBytes).toBeLessThan(200 * 1024);

    // An event whose delivery fails, seen on the webhook's page, then retried once the receiver is up.
    // The webhook's page polls: from here on the test moves the page's clock on instead of waiting.
    await callEndpoint(source.endpoint_url, "Linus");
    await page.clock.install();
    await page.goto(`${server.base}${webhookPath}`);
    const failed = page.locator('tbody[data-status="failed"]');
    await polled(failed, 3_000);
    await failed.getByRole("button", { name: "Attempts" }).click();
    await failed.getByText("receiver answered 500").waitFor();
    await browser.capture("webhook");
    receiver.status = 200;
    await failed.getByRole("button", { name: /^Retry delivery/ }).click();
    await polled(page.locator('tbody[data-status="succeeded"]'), 3_000);
    // The delivery-rate chart (GET /v1/webhooks/{id}/metrics, read every 10 s): both attempts.
    await polled(
      page.getByRole("img", { name: /: 2 attempts, 1 succeeded, 1 failed, success rate 50%\./ }),
      10_000,
    );

    // Another failure, re-sent by recovering the last hour's failed deliveries.
    receiver.status = 500;
    await callEndpoint(source.endpoint_url, "Barbara");
    await polled(failed, 3_000);
    receiver.status = 200;
    const hourAgo = new Date(Date.now() - 3600_000);
    const local = new Date(hourAgo.getTime() - hourAgo.getTimezoneOffset() * 60_000)
      .toISOString()
      .slice(0, 16);
    await page.getByLabel("Failed since").fill(local);
    await page.getByRole("button", { name: "Recover" }).click();
    await page.getByText("Recovered 1 failed delivery.").waitFor();
    await polled(
      page.getByRole("img", { name: /: 4 attempts, 2 succeeded, 2 failed, success rate 50%\./ }),
      10_000,
    );
    expect(receiver.requests.filter((r) => r.path === "/hook").map((r) => JSON.parse(r.body).name)).toEqual([
      "Linus",
      "Linus",
      "Barbara",
      "Barbara",
    ]);

    await nav("Webhooks").click();
    await page.getByRole("link", { name: "Receiver" }).waitFor();
    await browser.capture("webhooks");

    // The list again (its JavaScript was weighed above, before the page's clock was installed).
    await page.goto(`${server.base}/sources`);
    // Trigger, last event, webhooks; filter; delete with confirmation.
    const listed = page.getByRole("row", { name: /My greeter/ });
    await listed.getByRole("link", { name: "Receiver" }).waitFor();
    await listed.getByText(source.endpoint_url).waitFor();
    await listed.locator("time").waitFor();
    await browser.capture("sources");
    await listed.getByRole("switch", { name: "Active: My greeter" }).click();
    await page.getByText("My greeter is inactive.").waitFor();
    expect((await server.api("GET", `/v1/sources/${sourceId}`)).active).toBe(false);
    await page.getByLabel("Filter sources").fill("nothing-like-it");
    await page.getByText("No source matches").waitFor();
    await page.getByLabel("Filter sources").fill(sourceId);
    await page.getByRole("button", { name: "Delete My greeter" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete source" }).click();
    await page.getByText("No sources yet").waitFor();
    const gone = await fetch(`${server.base}/v1/sources/${sourceId}`, {
      headers: { authorization: `Bearer ${server.key}` },
    });
    expect(gone.status).toBe(404);

    // The registry page (with the component published above).
    await page.getByRole("link", { name: "New source" }).click();
    await page.getByRole("link", { name: "Configure Greeter" }).waitFor();
    await browser.capture("sources-new");

    expect(browser.errors).toEqual([]);
    expect(browser.violations).toEqual([]);
  }, 180_000);

  it("runs a workflow and opens its steps", async () => {
    const { page } = browser;
    const workflow = await server.api("POST", "/v1/workflows", {
      name: "Order pipeline",
      trigger: { type: "http", custom_response: true },
      steps: [
        {
          name: "total",
          component_code: `export default defineComponent({
            async run({ steps }) {
              console.log("items: " + steps.trigger.event.body.items.length);
              return { total: steps.trigger.event.body.items.reduce((n, i) => n + i, 0) };
            },
          });`,
        },
        {
          name: "tax",
          configured_props: { total: "{{steps.total.$return_value.total}}" },
          component_code: `export default defineComponent({
            props: { total: { type: "integer" } },
            async run({ $ }) {
              $.export("tax", this.total / 4);
              $.export("$summary", "Taxed " + this.total);
              return { gross: this.total + this.total / 4 };
            },
          });`,
        },
        {
          name: "check",
          component_code: `export default defineComponent({
            async run({ steps }) { if (steps.tax.tax > 100) throw new Error("tax too high: " + steps.tax.tax); },
          });`,
        },
      ],
    });
    await page.goto(`${server.base}/workflows`);
    if (await page.getByLabel("API key").isVisible()) {
      await page.getByLabel("API key").fill(server.key);
      await page.getByRole("button", { name: "Sign in" }).click();
    }
    const row = page.getByRole("row", { name: /Order pipeline/ });
    await row.getByText("total → tax → check").waitFor();
    await row.getByText(workflow.trigger.endpoint_url).waitFor();
    await browser.capture("workflows");
    await row.getByRole("link", { name: "Order pipeline" }).click();
    await page.getByRole("heading", { name: "Order pipeline" }).waitFor();
    await page.getByText("No runs yet").waitFor();

    // RUN NOW with an event: the run opens with each step.
    await page.getByLabel(/^Event \(JSON\)/).fill('{"body": {"items": [100, 60]}}');
    await page.getByRole("button", { name: "RUN NOW" }).click();
    await page.waitForURL(/\?run=exe_/);
    const run = page.getByRole("region", { name: /^Run exe_/ });
    await run.getByText("succeeded").first().waitFor();
    const total = run.getByRole("region", { name: /^total/ });
    await total.getByText('"total": 160').waitFor();
    await total.getByText("items: 2").waitFor();
    const tax = run.getByRole("region", { name: /^tax/ });
    await tax.getByText("Taxed 160").waitFor();
    await tax.getByText("40", { exact: true }).waitFor();
    await tax.getByText('"gross": 200').waitFor();
    await browser.capture("workflow-run");

    // A failing run: the failed step shows its error; replay runs the same event again.
    await page.getByLabel(/^Event \(JSON\)/).fill('{"body": {"items": [1000]}}');
    await page.getByRole("button", { name: "RUN NOW" }).click();
    const failed = page.getByRole("region", { name: /^check/ });
    await failed.getByRole("alert").getByText("Error: tax too high: 250").waitFor();
    const failedUrl = page.url();
    await page.getByText("Replay…").click();
    await page.getByRole("button", { name: /^Replay( with this event)?$/ }).click();
    await page.waitForURL((u) => u.href !== failedUrl && /\?run=exe_/.test(u.href));
    await page
      .getByRole("region", { name: /^check/ })
      .getByRole("alert")
      .getByText(/tax too high: 250/)
      .waitFor();
    const executions = (await fetch(`${server.base}/v1/workflows/${workflow.id}/executions`, {
      headers: { authorization: `Bearer ${server.key}` },
    }).then((r) => r.json())) as { data: Array<{ status: string; event: unknown }> };
    expect(executions.data.map((e) => e.status)).toEqual(["failed", "failed", "succeeded"]);
    expect(executions.data[0]?.event).toEqual({ body: { items: [1000] } });
    const runs = page.getByRole("table", { name: "Runs, newest first" });
    await runs.getByText("succeeded").waitFor();

    // A request to the endpoint runs it too (the request is the event: its JSON body is `body`):
    // the run appears in the list. It answers 500 no_response: no step calls $.respond.
    const called = await fetch(workflow.trigger.endpoint_url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ items: [1] }),
    });
    expect(called.status).toBe(500);
    expect(((await called.json()) as { error: { code: string } }).error.code).toBe("no_response");
    await runs.getByRole("row").nth(4).waitFor();
    await runs.getByText("succeeded").nth(1).waitFor();

    expect(browser.errors).toEqual([]);
    expect(browser.violations).toEqual([]);
  }, 120_000);
});
