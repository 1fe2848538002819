// Managed auth in chromium against a real OAuth server on loopback (oidc-provider with its own
// login and consent pages): "Connect acme account" in the deploy form opens the popup, the user
// signs in at the provider, the account comes back selected; the deployed source calls a loopback
// API with $auth.oauth_access_token; an expired token is refreshed, a revoked grant marks the
// account needs_reconnect (the run's log and the Accounts page say so). Then an embedding app on
// another origin connects its end user through the hosted page with @hookline/connect and a
// connect token, and reads only that user's accounts (CORS).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createFakeClock } from "@hookline/engine";
import { build } from "esbuild";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiCaller, startProvider, type TestProvider } from "../../../test/oauth/_provider.js";
import { ensureUiBuilt } from "../ensure-built.js";
import { BROWSER_MISSING, type Browser, openBrowser } from "./_browser.js";
import { startServer, type TestServer } from "./_server.js";

/** The embedding app: its page (another origin) and its server's route minting connect tokens. */
async function startEmbedder(server: TestServer): Promise<{ origin: string; close(): Promise<void> }> {
  const helper = await build({
    entryPoints: [fileURLToPath(new URL("../../connect/src/index.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    write: false,
  });
  const script = helper.outputFiles[0]?.text ?? "";
  let origin = "";
  const html = () => `<!doctype html><html lang="en"><head><title>Embedder</title></head><body>
<button id="connect">Connect Acme</button><pre id="out"></pre>
<script type="module">
import { connectAccount } from "/connect.js";
const out = document.getElementById("out");
document.getElementById("connect").onclick = async () => {
  const { token } = await (await fetch("/token")).json();
  try {
    const account = await connectAccount({ token, app: "acme", baseUrl: ${JSON.stringify(server.base)} });
    const list = await (await fetch(${JSON.stringify(`${server.base}/v1/accounts`)}, { headers: { authorization: "Bearer " + token } })).json();
    out.textContent = JSON.stringify({ account, list: list.data });
  } catch (e) { out.textContent = JSON.stringify({ error: e.code || String(e) }); }
};
</script></body></html>`;
  const http: Server = createServer(async (req, res) => {
    if (req.url === "/connect.js") res.writeHead(200, { "content-type": "text/javascript" }).end(script);
    else if (req.url === "/token") {
      // The embedding app's server: mints a token for its signed-in end user with its API key.
      const minted = await server.api("POST", "/v1/connect/tokens", {
        external_user_id: "end-user-1",
        allowed_origins: [origin],
      });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ token: minted.token }));
    } else res.writeHead(200, { "content-type": "text/html" }).end(html());
  });
  await new Promise<void>((ok) => http.listen(0, "127.0.0.1", ok));
  // localhost, not 127.0.0.1: another origin than Hookline's, as an embedding app's would be.
  origin = `http://localhost:${(http.address() as AddressInfo).port}`;
  return {
    origin,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((ok) => http.close(() => ok()));
    },
  };
}

/** Signs in (and consents) at the provider's own pages in the popup, until the popup closes. */
async function signInAtProvider(popup: Page, login: string): Promise<void> {
  while (!popup.isClosed()) {
    const field = popup.locator('input[name="login"]');
    const submit = popup.locator('button[type="submit"]');
    try {
      await submit.first().waitFor({ timeout: 5_000 });
    } catch {
      if (popup.isClosed()) return;
      continue;
    }
    if (await field.count()) {
      await field.fill(login);
      await popup.locator('input[name="password"]').fill("any");
    }
    await submit
      .first()
      .click()
      .catch(() => undefined); // the popup may close under the click
    await popup.waitForLoadState().catch(() => undefined);
  }
}

describe.skipIf(BROWSER_MISSING !== undefined)("connecting accounts in chromium", () => {
  const clock = createFakeClock(Date.now());
  let server: TestServer;
  let provider: TestProvider;
  let browser: Browser;
  let embedder: { origin: string; close(): Promise<void> };

  beforeAll(async () => {
    await ensureUiBuilt();
    [server, browser] = await Promise.all([startServer({ clock }), openBrowser()]);
    provider = await startProvider([`${server.base}/oauth/callback`]);
    embedder = await startEmbedder(server);
    await server.api("PUT", "/v1/oauth_clients/acme", provider.client);
    await server.api("POST", "/v1/components/registry", { component_code: apiCaller(`${provider.api}/me`) });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([server?.close(), provider?.close(), embedder?.close()]);
  });

  it("connects through the popup, refreshes an expired token, and shows an account that needs reconnecting", async () => {
    const { page, context } = browser;
    await page.goto(`${server.base}/login`);
    await page.getByLabel("API key").fill(server.key);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { name: "Sources" }).waitFor();

    await page.goto(`${server.base}/sources?action=create&key=acme-who-am-i`);
    await page.getByRole("heading", { name: "Deploy Who am I" }).waitFor();
    const [popup] = await Promise.all([
      context.waitForEvent("page"),
      page.getByRole("button", { name: "Connect acme account" }).click(),
    ]);
    await signInAtProvider(popup, "ada");
    const picker = page.getByRole("combobox", { name: /^acme/ });
    await expect.poll(() => picker.inputValue()).toMatch(/^apn_/);
    const accountId = await picker.inputValue();
    await page.getByRole("button", { name: "Deploy" }).click();
    await page.waitForURL(/\/sources\/dc_/);
    const sourceId = new URL(page.url()).pathname.split("/").pop() as string;
    expect((await server.api("GET", `/v1/sources/${sourceId}`)).configured_props.acme).toEqual({
      authProvisionId: accountId,
    });

    const run = async () => server.api("POST", `/v1/sources/${sourceId}/run`);
    expect((await run()).emitted[0].event).toEqual({ me: { sub: "ada" }, uid: "ada", client: "hookline" });
    // The provider expires the token (and the engine's clock passes its expiry): the run refreshes first.
    provider.expireAccessTokens();
    clock.advance(3_600_000);
    const refreshed = await run();
    expect(refreshed.error).toBeNull();
    expect(refreshed.emitted[0].event.me).toEqual({ sub: "ada" });
    expect(provider.counts.refreshed).toBe(1);
    // The provider revokes the grant: the refresh is refused, the account needs reconnecting.
    provider.revokeGrants();
    clock.advance(3_600_000);
    expect((await run()).error.message).toContain("401");
    expect((await server.api("GET", `/v1/accounts/${accountId}`)).status).toBe("needs_reconnect");
    const logs = (await server.api("GET", `/v1/sources/${sourceId}/logs`)) as { message: string }[];
    expect(logs.some((l) => l.message.includes(`account ${accountId} (acme) needs reconnect`))).toBe(true);
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Accounts" }).click();
    await page
      .getByRole("row", { name: /Needs reconnect/ })
      .getByRole("button", { name: /^Reconnect/ })
      .waitFor();
    await browser.capture("accounts-oauth");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "OAuth clients" }).click();
    await page
      .getByRole("row", { name: /Acme ID/ })
      .getByText(`${server.base}/oauth/callback`)
      .waitFor();
    await browser.capture("oauth-clients");
  });

  it("an embedding app on another origin connects its end user through the hosted page, who sees only their accounts", async () => {
    const { page, context } = browser;
    await page.goto(embedder.origin);
    const [popup] = await Promise.all([
      context.waitForEvent("page"),
      page.getByRole("button", { name: "Connect Acme" }).click(),
    ]);
    await signInAtProvider(popup, "erin");
    await expect
      .poll(async () => (await page.locator("#out").textContent()) ?? "", { timeout: 20_000 })
      .toContain("account");
    const out = JSON.parse((await page.locator("#out").textContent()) as string);
    expect(out.account).toMatchObject({
      app: "acme",
      oauth: true,
      status: "active",
      external_user_id: "end-user-1",
    });
    expect(out.list.map((a: { id: string }) => a.id)).toEqual([out.account.id]);
    const all = (await server.api("GET", "/v1/accounts")) as { external_user_id: string | null }[];
    expect(all.map((a) => a.external_user_id).sort()).toEqual(["end-user-1", null]);
    expect(browser.errors).toEqual([]);
  });
});
