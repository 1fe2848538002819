import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseEnv, pd, receiver, type Served, serve, spawnPd, stop, tempDir, waitFor } from "./_helpers.js";

// One in-memory server for the command tests. Tests are independent (own folders and names) and
// run concurrently with the PGlite restart test, which dominates the time.
let server: Served;
let env: NodeJS.ProcessEnv;
const cwd = tempDir();

beforeAll(async () => {
  server = await serve(["--memory", "--allow-private-urls"], { cwd, env: baseEnv() });
  expect(server.key).toMatch(/^hl_/);
  env = baseEnv({
    HOOKLINE_API_KEY: server.key ?? "",
    HOOKLINE_BASE_URL: server.url,
    XDG_CONFIG_HOME: join(cwd, "config"),
  });
}, 30_000);

afterAll(async () => {
  if (server) expect(await stop(server)).toBe(0);
});

const json = <T>(text: string): T => JSON.parse(text) as T;

describe.concurrent("pd against pd serve", () => {
  it("deploys a scaffolded source, delivers its events to a subscribed webhook, shows events and logs", async () => {
    const hook = await receiver();
    try {
      expect((await pd(["init", "source", "hello"], { cwd, env })).code).toBe(0);
      const deployed = await pd(["deploy", "hello.mjs", "--name", "hello"], { cwd, env });
      expect(deployed.stderr).toContain("Deploying");
      expect(deployed.code).toBe(0);

      const list = await pd(["list", "sources", "--json"], { cwd, env });
      const sources = json<Array<{ id: string; name: string; endpoint_url: string }>>(list.stdout);
      const hello = sources.find((s) => s.name === "hello");
      expect(hello?.id).toMatch(/^dc_/);

      const webhook = json<{ id: string }>(
        (await pd(["webhooks", "create", hook.url, "--name", "receiver", "--json"], { cwd, env })).stdout,
      );
      expect(webhook.id).toMatch(/^wh_/);
      const sub = await pd(["subscriptions", "create", "hello", webhook.id], { cwd, env });
      expect(sub.code).toBe(0);
      expect(sub.stdout).toContain(hello?.id);

      const res = await fetch(hello?.endpoint_url ?? "", {
        method: "POST",
        body: JSON.stringify({ n: 1 }),
        headers: { "content-type": "application/json" },
      });
      expect(res.status).toBe(200);
      const got = await waitFor(() => hook.requests[0], 15_000, "the webhook delivery");
      expect(got.body).toContain('"n":1');
      expect(Object.keys(got.headers).some((h) => h.includes("signature"))).toBe(true);

      const events = json<Array<{ event: unknown }>>(
        (await pd(["events", "hello", "-n", "1", "--json"], { cwd, env })).stdout,
      );
      expect(events).toHaveLength(1);
      expect(events[0]?.event).toEqual({ n: 1 });

      const logs = await pd(["logs", "hello"], { cwd, env });
      expect(logs.stdout).toContain("hello: request #1: POST /");

      const updated = json<{ configured_props: Record<string, unknown> }>(
        (await pd(["update", "hello", "--prop", "greeting=hi", "--json"], { cwd, env })).stdout,
      );
      expect(updated.configured_props.greeting).toBe("hi");

      const table = await pd(["list", "subscriptions"], { cwd, env });
      expect(table.stdout).toContain(webhook.id);
      expect((await pd(["subscriptions", "delete", "hello", webhook.id], { cwd, env })).code).toBe(0);
      expect((await pd(["webhooks", "delete", webhook.id], { cwd, env })).code).toBe(0);
      expect((await pd(["delete", "hello"], { cwd, env })).code).toBe(0);
      const after = json<unknown[]>((await pd(["list", "sources", "--json"], { cwd, env })).stdout);
      expect(after.find((s) => (s as { name: string }).name === "hello")).toBeUndefined();
    } finally {
      await hook.close();
    }
  }, 40_000);

  it("exits 1 with the API's code and message, a usage error, or a clear message when the server is down", async () => {
    const missing = await pd(["delete", "nope"], { cwd, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^not_found: .*nope/);

    const bad = await pd(["update", "x"], { cwd, env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^usage: /);

    const down = await pd(["list", "sources"], {
      cwd,
      env: { ...env, HOOKLINE_BASE_URL: "http://127.0.0.1:9" },
    });
    expect(down.code).toBe(1);
    expect(down.stderr).toMatch(
      /^server_unreachable: cannot reach the Hookline server at http:\/\/127\.0\.0\.1:9/,
    );
    expect(down.stderr).not.toContain("    at ");
  }, 20_000);

  it("pd login saves a profile with mode 600 that later commands use", async () => {
    const dir = tempDir();
    const loginEnv = baseEnv({ XDG_CONFIG_HOME: join(dir, "config") });
    const login = await pd(
      ["login", "--api-key", server.key ?? "", "--base-url", server.url, "-p", "local"],
      { cwd: dir, env: loginEnv },
    );
    expect(login.code).toBe(0);
    const path = join(dir, "config", "hookline", "config");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(json<{ profiles: Record<string, unknown> }>(readFileSync(path, "utf8")).profiles.local).toEqual({
      apiKey: server.key,
      baseUrl: server.url,
    });
    const list = await pd(["list", "webhooks", "-p", "local", "--json"], { cwd: dir, env: loginEnv });
    expect(list.code).toBe(0);
  }, 20_000);

  it("pd dev redeploys on save with the same id and streams events until Ctrl-C", async () => {
    const dir = tempDir();
    expect((await pd(["init", "source", "devsrc"], { cwd: dir, env })).code).toBe(0);
    const dev = spawnPd(["dev", "devsrc.mjs"], { cwd: dir, env });
    const id = await waitFor(
      () => /Deployed devsrc \((dc_\w+)\)/.exec(dev.output.stdout)?.[1],
      15_000,
      "pd dev to deploy",
    );
    const endpoint = /endpoint: (\S+)/.exec(dev.output.stdout)?.[1] ?? "";
    await new Promise((r) => setTimeout(r, 500)); // the streams connect
    await fetch(endpoint, {
      method: "POST",
      body: JSON.stringify({ live: true }),
      headers: { "content-type": "application/json" },
    });
    await waitFor(() => dev.output.stdout.includes('[event]   {"live":true}'), 10_000, "the streamed event");
    await waitFor(() => dev.output.stdout.includes("[log]"), 10_000, "the streamed log");
    const file = join(dir, "devsrc.mjs");
    writeFileSync(file, readFileSync(file, "utf8").replace('"hello"', '"changed"'));
    await waitFor(() => dev.output.stdout.includes(`Redeployed devsrc (${id})`), 15_000, "the redeploy");
    dev.child.kill("SIGINT");
    expect(await dev.exited).toBe(0);
  }, 40_000);
});

describe.concurrent("pd serve with a data folder", () => {
  it("keeps deployed sources and the API key across a restart; SIGTERM exits 0", async () => {
    const dir = tempDir();
    const dataDir = join(dir, "data");
    const first = await serve(["--data-dir", dataDir], { cwd: dir, env: baseEnv() }, 30_000);
    const key = first.key ?? "";
    expect(key).toMatch(/^hl_/);
    expect(readFileSync(join(dataDir, "api-key"), "utf8").trim()).toBe(key);
    expect(statSync(join(dataDir, "api-key")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, "secrets.key")).mode & 0o777).toBe(0o600);
    const envFirst = baseEnv({ HOOKLINE_BASE_URL: first.url, XDG_CONFIG_HOME: join(dir, "config") });
    // pd finds a key file only in the default ./.hookline; this data folder is elsewhere, so pass the key.
    await pd(["init", "source", "kept"], { cwd: dir, env: envFirst });
    const deployed = await pd(["deploy", "kept.mjs"], {
      cwd: dir,
      env: { ...envFirst, HOOKLINE_API_KEY: key },
    });
    expect(deployed.code).toBe(0);
    expect(await stop(first)).toBe(0);

    const second = await serve(["--data-dir", dataDir], { cwd: dir, env: baseEnv() }, 30_000);
    try {
      expect(second.key).toBeUndefined(); // shown only on the first start
      expect(second.output.stdout).toContain(join(dataDir, "api-key"));
      const list = await pd(["list", "sources", "--json"], {
        cwd: dir,
        env: { ...envFirst, HOOKLINE_BASE_URL: second.url, HOOKLINE_API_KEY: key },
      });
      expect(json<Array<{ name: string }>>(list.stdout).map((s) => s.name)).toContain("Kept");
    } finally {
      expect(await stop(second)).toBe(0);
    }
  }, 60_000);
});
