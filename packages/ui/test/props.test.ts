// The generated prop form in chromium: every prop type and array form, static and async options
// (paging, useQuery search, propDefinition), an app prop with "add account", reloadProps with
// additionalProps and a ConfigurationError next to its prop, secrets never shown back; also a
// deploy from a URL, keyboard tabs, a narrow screen and the workflows placeholder.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureUiBuilt } from "../ensure-built.js";
import { BROWSER_MISSING, type Browser, openBrowser } from "./_browser.js";
import { type Receiver, startReceiver, startServer, type TestServer } from "./_server.js";

const KITCHEN = `import { ConfigurationError } from "@pipedream/platform";
const github = {
  type: "app",
  app: "github",
  propDefinitions: {
    repo: {
      type: "string",
      label: "Repository",
      useQuery: true,
      async options({ page, query, org }) {
        const all = ["api", "web", "docs", "cli", "ui"].filter((r) => !query || r.includes(query));
        return all.slice(page * 2, page * 2 + 2).map((r) => org + "/" + r);
      },
    },
  },
};
export default {
  key: "github-kitchen-sink",
  name: "Kitchen Sink",
  version: "1.0.0",
  props: {
    github,
    note: { type: "alert", alertType: "info", content: "Every prop type in one form" },
    org: { type: "string", label: "Organization" },
    repo: { propDefinition: [github, "repo", (c) => ({ org: c.org })] },
    count: { type: "integer", label: "Count", min: 1, max: 10 },
    enabled: { type: "boolean", label: "Enabled", optional: true },
    config: { type: "object", label: "Config", optional: true },
    color: { type: "string", label: "Color", options: [{ label: "Red", value: "red" }, { label: "Green", value: "green" }] },
    tags: { type: "string[]", label: "Tags", optional: true },
    sizes: { type: "integer[]", label: "Sizes", optional: true, options: [1, 2, 3] },
    token: { type: "string", label: "Token", secret: true },
    timer: { type: "$.interface.timer", default: { intervalSeconds: 900 } },
    sheet: { type: "string", label: "Sheet", reloadProps: true },
    files: { type: "dir", label: "Synced folder", accessMode: "write", sync: true, optional: true },
  },
  additionalProps() {
    if (this.sheet === "empty") throw new ConfigurationError("Sheet empty has no header row");
    return this.sheet === "orders" ? { column: { type: "string", label: "Column", options: ["id", "total"] } } : {};
  },
  run() {
    const { org, repo, count, enabled, config, color, tags, sizes, token, sheet, column } = this;
    this.$emit({ org, repo, count, enabled, config, color, tags, sizes, token, sheet, column, login: this.github.$auth.login });
  },
};
`;

const ECHO = `export default {
  name: "Echo", version: "0.1.0",
  props: { http: { type: "$.interface.http" }, prefix: { type: "string", label: "Prefix", optional: true } },
  run(event) { this.$emit({ prefix: this.prefix, body: event.body }); },
};`;

describe.skipIf(BROWSER_MISSING !== undefined)("prop forms in chromium", () => {
  let server: TestServer;
  let receiver: Receiver;
  let browser: Browser;

  beforeAll(async () => {
    await ensureUiBuilt();
    [server, receiver, browser] = await Promise.all([startServer(), startReceiver(), openBrowser()]);
    receiver.files.set("/echo.mjs", ECHO);
    await server.api("POST", "/v1/components/registry", { component_code: KITCHEN });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([server?.close(), receiver?.close()]);
  });

  it("fills every prop type, options, accounts and dynamic props; secrets are never shown back", async () => {
    const { page } = browser;
    await page.goto(`${server.base}/login`);
    await page.getByLabel("API key").fill(server.key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Sources" }).waitFor();

    await page.goto(`${server.base}/sources?action=create&key=github-kitchen-sink`);
    await page.getByRole("heading", { name: "Deploy Kitchen Sink" }).waitFor();
    await page.getByRole("note").getByText("Every prop type in one form").waitFor();
    // A dir prop (valueType "none") is wired by the platform: no input for it.
    expect(await page.getByLabel(/^Synced folder/).count()).toBe(0);

    // Deploying with nothing filled names the missing props next to them.
    await page.getByRole("button", { name: "Deploy" }).click();
    const org = page.getByLabel(/^Organization/);
    await page.getByText('"Organization" is required').waitFor();
    expect(await org.getAttribute("aria-invalid")).toBe("true");

    // The app prop: connect an account in place; it is picked at once.
    await page.getByRole("button", { name: "Add github account" }).click();
    await page.getByLabel("Account name").fill("octo");
    await page.getByLabel("Field name 1").fill("login");
    await page.getByLabel("Value 1").fill("octocat");
    await page.getByRole("button", { name: "Save account" }).click();
    await page
      .getByLabel(/^github/)
      .locator("option:checked", { hasText: "octo (apn_" })
      .waitFor({ state: "attached" });

    // Async options through the propDefinition: with the org, paged, then searched.
    await org.fill("acme");
    const repo = page.getByLabel(/^Repository/);
    await repo.locator("option", { hasText: "acme/web" }).waitFor({ state: "attached" });
    await page.getByRole("button", { name: "Load more options" }).click();
    await repo.locator("option", { hasText: "acme/cli" }).waitFor({ state: "attached" });
    await page.getByLabel("Search Repository").fill("ui");
    await repo.locator("option", { hasText: "acme/ui" }).waitFor({ state: "attached" });
    expect(await repo.locator("option", { hasText: "acme/api" }).count()).toBe(0);
    await repo.selectOption({ label: "acme/ui" });

    await page.getByLabel(/^Count/).fill("3");
    await page.getByLabel("Enabled").check();
    await page.getByLabel(/^Config/).fill('{"a": 1}');
    await page.getByLabel(/^Color/).selectOption({ label: "Green" });
    await page.getByRole("button", { name: "Add Tags item" }).click();
    await page.getByRole("textbox", { name: "Tags, item 1" }).fill("x");
    await page.getByRole("button", { name: "Add Tags item" }).click();
    await page.getByRole("textbox", { name: "Tags, item 2" }).fill("y");
    await page
      .getByRole("group", { name: /^Sizes/ })
      .getByLabel("2")
      .check();
    await page.getByLabel(/^Token/).fill("s3cret");
    await page.getByLabel("Every N seconds").check();
    await page.getByLabel("Interval in seconds").fill("60");

    // reloadProps: a ConfigurationError shows next to the prop; another value adds a prop.
    const sheet = page.getByLabel(/^Sheet/);
    await sheet.fill("empty");
    await page.getByText("Sheet empty has no header row").waitFor();
    await sheet.fill("orders");
    await page.getByLabel(/^Column/).selectOption("total");
    await browser.capture("props-form");

    await page.getByRole("button", { name: "Deploy" }).click();
    await page.waitForURL(/\/sources\/dc_/);
    const sourceId = new URL(page.url()).pathname.split("/").pop() as string;
    await page.getByText("Timer: every minute").waitFor();
    const deployed = await server.api("GET", `/v1/sources/${sourceId}`);
    expect(deployed.configured_props).toMatchObject({
      github: { authProvisionId: expect.stringMatching(/^apn_/) },
      org: "acme",
      repo: "acme/ui",
      count: 3,
      enabled: true,
      config: { a: 1 },
      color: "green",
      tags: ["x", "y"],
      sizes: [2],
      token: "********",
      timer: { intervalSeconds: 60 },
      sheet: "orders",
      column: "total",
    });

    // Configuration: the saved secret stays hidden; Update without retyping keeps it.
    await page.getByRole("tab", { name: "Configuration" }).click();
    const token = page.getByLabel(/^Token/);
    await token.waitFor();
    expect(await token.inputValue()).toBe("");
    expect(await token.getAttribute("placeholder")).toMatch(/saved \(hidden\)/);
    await page.getByLabel(/^Column/).selectOption("id");
    await page.getByRole("button", { name: "Update" }).click();
    await page.getByText(`Updated. The source keeps its id ${sourceId}.`).waitFor();
    expect(await page.content()).not.toContain("s3cret");
    await page.getByRole("button", { name: "RUN NOW" }).click();
    await page.getByText("emitted 1 event").waitFor();
    const [latest] = (await server.api(
      "GET",
      `/v1/sources/${sourceId}/event_summaries?expand=event&limit=1`,
    )) as {
      event: Record<string, unknown>;
    }[];
    expect(latest?.event).toMatchObject({ token: "s3cret", column: "id", login: "octocat", repo: "acme/ui" });

    // Tabs by keyboard.
    await page.getByRole("tab", { name: "Configuration" }).focus();
    await page.keyboard.press("ArrowRight");
    expect(await page.getByRole("tab", { name: "Subscriptions" }).getAttribute("aria-selected")).toBe("true");
    await page.keyboard.press("Home");
    expect(await page.getByRole("tab", { name: "Events" }).getAttribute("aria-selected")).toBe("true");

    // A narrow screen: the list stacks.
    await page.setViewportSize({ width: 390, height: 844 });
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Sources" }).click();
    await page.getByText("Timer: every minute").waitFor();
    await browser.capture("sources-narrow");
    await page.setViewportSize({ width: 1280, height: 860 });

    // Deploy from a URL.
    await page.goto(`${server.base}/sources/new`);
    await page.getByLabel("Component code URL").fill(`${receiver.url}/echo.mjs`);
    await page.getByRole("button", { name: "Load component" }).click();
    await page.getByRole("heading", { name: "Deploy Echo" }).waitFor();
    await page.getByLabel(/^Prefix/).fill(">>");
    await page.getByRole("button", { name: "Deploy" }).click();
    await page.getByRole("heading", { name: "Echo" }).waitFor();

    // Accounts: the one connected above is listed; connect another and delete it.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Accounts" }).click();
    await page.getByRole("row", { name: /octo/ }).getByText("github").waitFor();
    await page.getByLabel("App (name slug)").fill("slack");
    await page.getByLabel("Account name").fill("spare");
    await page.getByLabel("Value 1").fill("xoxb-1");
    await page.getByRole("button", { name: "Save account" }).click();
    await page.getByText(/^Connected spare \(apn_/).waitFor();
    await browser.capture("accounts");
    await page.getByRole("button", { name: "Delete spare" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete account" }).click();
    await page.getByText("Deleted spare.").waitFor();
    expect((await server.api("GET", "/v1/accounts")).map((a: { name: string }) => a.name)).toEqual(["octo"]);

    // Workflows: none in this workspace yet, and the page says how to create one (browser.test.ts
    // runs one and photographs the pages).
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Workflows" }).click();
    await page.getByText("No workflows yet.").waitFor();

    // The only console lines are Chrome's own network log of the two 422 answers provoked above
    // (the deploy with missing props, the ConfigurationError); the app itself logged nothing.
    const provoked = `${server.base}/sources?action=create&key=github-kitchen-sink: Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)`;
    expect(browser.errors).toEqual([provoked, provoked]);
    expect(browser.violations).toEqual([]);
  }, 180_000);
});
