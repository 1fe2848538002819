/** Every `pd serve` limit flag and variable lands on the engine or handler option it names. */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { _parse } from "../src/_args.js";
import { outboundLine, readServeSettings, SETTING_OPTIONS, SETTINGS } from "../src/_serve-settings.js";
import { baseEnv, type Served, serve, stop, tempDir, waitForAsync } from "./_helpers.js";

const read = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
  readServeSettings(_parse("serve", argv, SETTING_OPTIONS), env);

describe("pd serve settings", () => {
  it("map each flag to its option, with units", () => {
    const settings = read([
      ...["--run-timeout", "2s", "--options-timeout", "1500ms", "--sandbox-memory", "32mb"],
      ...["--result-limit", "512kb", "--keep-events", "50", "--keep-logs", "20"],
      ...["--retry-schedule", "1s,1m,1h", "--attempt-timeout", "3s", "--delivery-concurrency", "8"],
      ...["--webhook-concurrency", "2", "--disable-after", "2d", "--body-limit", "2mb"],
      ...["--tmp-size", "16mb", "--max-queued", "10", "--max-emits", "50", "--max-event-size", "64kb"],
      ...["--keep-event-bytes", "20mb", "--keep-log-bytes", "1mb", "--max-page-size", "512kb"],
      ...["--keep-executions", "25", "--max-execution-size", "2mb"],
      ...["--ingress-rate-limit", "5/s,50", "--slow-after", "1s", "--slow-concurrency", "32"],
      ...["--circuit-failures", "3", "--circuit-cooldown", "10s", "--circuit-max-cooldown", "5m"],
      ...["--http-timeout", "1s", "--sandbox-threads", "3", "--sandbox-kill-after", "500ms"],
      ...["--http-memory", "16mb"],
      ...["--max-data-store-keys", "500", "--max-data-store-value", "64kb"],
      ...[
        "--rate-limit",
        "100/10s",
        "--allow-url",
        "10.0.0.0/8,hooks.internal",
        "--allow-url",
        "192.168.1.5",
      ],
      "--allow-private-urls",
    ]);
    expect(settings.engine).toEqual({
      limits: {
        runTimeoutMs: 2000,
        httpTimeoutMs: 1000,
        optionsTimeoutMs: 1500,
        memoryBytes: 32 * 1024 ** 2,
        httpMemoryBytes: 16 * 1024 ** 2,
        resultBytes: 512 * 1024,
        tmpBytes: 16 * 1024 ** 2,
        maxQueuedInvocations: 10,
        maxEmitsPerRun: 50,
        maxEventBytes: 64 * 1024,
        maxDataStoreKeys: 500,
        maxDataStoreValueBytes: 64 * 1024,
        maxExecutionBytes: 2 * 1024 ** 2,
      },
      sandboxes: { mode: "pool", size: 3, killAfterMs: 500 },
      retention: { events: 50, eventBytes: 20 * 1024 ** 2, logs: 20, logBytes: 1024 ** 2, executions: 25 },
      worker: {
        retrySchedule: [1000, 60_000, 3_600_000],
        attemptTimeoutMs: 3000,
        concurrency: 8,
        perWebhookConcurrency: 2,
        slowAfterMs: 1000,
        slowConcurrency: 32,
        circuitFailures: 3,
        circuitCooldownMs: 10_000,
        circuitMaxCooldownMs: 300_000,
        disableAfterMs: 2 * 86_400_000,
      },
      allowList: ["10.0.0.0/8", "hooks.internal", "192.168.1.5"],
      allowPrivateUrls: true,
    });
    expect(settings.handler).toEqual({
      bodyLimit: 2 * 1024 ** 2,
      rateLimit: { requests: 100, windowMs: 10_000 },
      ingressRateLimit: { perSecond: 5, burst: 50 },
      maxPageBytes: 512 * 1024,
    });
    expect(outboundLine(settings)).toBe("private and loopback addresses allowed (--allow-private-urls)");
  });

  it("read each variable when its flag is not given; the flag wins", () => {
    const sample = {
      duration: "7s",
      bytes: "7mb",
      count: "7",
      durations: "7s,7m",
      rate: "off",
      bucket: "7/s",
      list: "7",
      flag: "1",
      mode: "thread",
    };
    const env = Object.fromEntries(SETTINGS.map((s) => [s.env, sample[s.kind]]));
    const fromEnv = read([], { ...env, HOOKLINE_ALLOW_PRIVATE_URLS: "0" });
    expect(fromEnv.engine.limits).toEqual({
      runTimeoutMs: 7000,
      httpTimeoutMs: 7000,
      optionsTimeoutMs: 7000,
      memoryBytes: 7 * 1024 ** 2,
      httpMemoryBytes: 7 * 1024 ** 2,
      resultBytes: 7 * 1024 ** 2,
      tmpBytes: 7 * 1024 ** 2,
      maxQueuedInvocations: 7,
      maxEmitsPerRun: 7,
      maxEventBytes: 7 * 1024 ** 2,
      maxDataStoreKeys: 7,
      maxDataStoreValueBytes: 7 * 1024 ** 2,
      maxExecutionBytes: 7 * 1024 ** 2,
    });
    expect(fromEnv.engine.retention).toEqual({
      events: 7,
      eventBytes: 7 * 1024 ** 2,
      logs: 7,
      logBytes: 7 * 1024 ** 2,
      executions: 7,
    });
    expect(fromEnv.engine.sandboxes).toEqual({ mode: "thread", size: 7, killAfterMs: 7000 });
    expect(fromEnv.engine.worker).toEqual({
      retrySchedule: [7000, 420_000],
      attemptTimeoutMs: 7000,
      concurrency: 7,
      perWebhookConcurrency: 7,
      slowAfterMs: 7000,
      slowConcurrency: 7,
      circuitFailures: 7,
      circuitCooldownMs: 7000,
      circuitMaxCooldownMs: 7000,
      disableAfterMs: 7000,
    });
    expect(fromEnv.handler).toEqual({
      bodyLimit: 7 * 1024 ** 2,
      rateLimit: false,
      ingressRateLimit: { perSecond: 7, burst: 70 },
      workspaceIngressRateLimit: { perSecond: 7, burst: 70 },
      maxPageBytes: 7 * 1024 ** 2,
    });
    expect(fromEnv.engine.allowPrivateUrls).toBeUndefined();
    expect(fromEnv.handler.rateLimit).toBe(false);
    expect(fromEnv.engine.allowList).toEqual(["127.0.0.0/8", "::1", "localhost", "7"]);
    expect(outboundLine(fromEnv)).toBe(
      "allowed: loopback (--dev: 127.0.0.0/8, ::1, localhost); 7 (--allow-url); other private addresses refused (SSRF guard)",
    );
    expect(read(["--keep-events", "3"], { HOOKLINE_KEEP_EVENTS: "9" }).engine.retention?.events).toBe(3);
    const none = read([]);
    // The server runs sandboxes in worker threads unless told otherwise.
    expect(none).toEqual({ engine: { worker: {}, sandboxes: { mode: "pool" } }, handler: {}, given: [] });
    expect(() => read(["--sandbox-mode", "fork"])).toThrow(/--sandbox-mode "fork": expected pool or thread/);
    expect(outboundLine(none)).toMatch(
      /^private and loopback addresses refused \(SSRF guard\); allow them with --dev/,
    );
  });

  it("refuse a bad value naming the flag or the variable and what it takes", () => {
    expect(() => read(["--attempt-timeout", "soon"])).toThrow(
      /^--attempt-timeout "soon": expected a duration/,
    );
    expect(() => read(["--attempt-timeout", "0s"])).toThrow(/^--attempt-timeout "0s": must be at least 1ms/);
    expect(() => read(["--sandbox-memory", "12kb"])).toThrow(
      /^--sandbox-memory "12kb": must be at least 1048576 bytes/,
    );
    expect(() => read(["--retry-schedule", "5s,,1m"])).toThrow(
      /^--retry-schedule "5s,,1m": expected durations/,
    );
    expect(() => read([], { HOOKLINE_ALLOW_PRIVATE_URLS: "maybe" })).toThrow(
      /^HOOKLINE_ALLOW_PRIVATE_URLS "maybe": expected 1, true, 0 or false/,
    );
    expect(() => read(["--ingress-rate-limit", "20"])).toThrow(
      /^--ingress-rate-limit "20": expected requests per second and a burst such as 20\/s,200/,
    );
    expect(read(["--ingress-rate-limit", "off"]).handler.ingressRateLimit).toBe(false);
    expect(() => read([], { HOOKLINE_CIRCUIT_COOLDOWN: "later" })).toThrow(
      /^HOOKLINE_CIRCUIT_COOLDOWN "later": expected a duration/,
    );
    expect(() => read([], { HOOKLINE_BODY_LIMIT: "big" })).toThrow(
      /^HOOKLINE_BODY_LIMIT "big": expected a size/,
    );
  });
});

describe("pd serve limits as a real process", () => {
  let server: Served;
  beforeAll(async () => {
    server = await serve(["--memory", "--max-emits", "2"], {
      cwd: tempDir(),
      env: baseEnv({ HOOKLINE_INGRESS_RATE_LIMIT: "0.01/s,1" }),
    });
  }, 40_000);
  afterAll(async () => {
    if (server) await stop(server);
  });

  it("a flag (--max-emits) and a variable (HOOKLINE_INGRESS_RATE_LIMIT) reach the engine and the handler", async () => {
    expect(server.output.stdout).toMatch(/Settings: .*--max-emits 2.*--ingress-rate-limit 0\.01\/s,1/);
    const auth = { authorization: `Bearer ${server.key}`, "content-type": "application/json" };
    const code = `export default { name: "Many", version: "0.1.0", props: { http: "$.interface.http" },
      run() { for (let i = 0; i < 5; i++) this.$emit({ i }); } };`;
    const created = await fetch(`${server.url}/v1/sources`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ component_code: code }),
    });
    expect(created.status).toBe(200);
    const source = ((await created.json()) as { data: { id: string; endpoint_url: string } }).data;
    const endpoint = `${server.url}${new URL(source.endpoint_url).pathname}`;
    expect((await fetch(endpoint, { method: "POST", body: "{}" })).status).toBe(200);
    // The bucket holds one request and refills one every 100 s: the next one is refused.
    const refused = await fetch(endpoint, { method: "POST", body: "{}" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    // Two of the run's five $emit calls were kept.
    const count = async () => {
      const events = await fetch(`${server.url}/v1/sources/${source.id}/event_summaries`, { headers: auth });
      return ((await events.json()) as { data: unknown[] }).data.length;
    };
    await waitForAsync(async () => (await count()) >= 2, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await count()).toBe(2);
  });
});

describe("docs/cli.md", () => {
  it("lists every setting with its flag and its variable", () => {
    const doc = readFileSync(new URL("../../../docs/cli.md", import.meta.url), "utf8");
    for (const setting of SETTINGS) {
      const row = doc.split("\n").find((line) => line.startsWith(`| \`--${setting.flag}`));
      expect(row, `--${setting.flag}`).toBeDefined();
      expect(row, `--${setting.flag}`).toContain(setting.env);
    }
  });
});
