/**
 * `pd serve` as an operator runs it: JSON logs on stderr carry the request id the response shows
 * (and the workspace and emitter), `/healthz` and `/readyz` answer with no key, and `/metrics` is
 * reached with its own token or on its own address, parsed with a Prometheus text parser.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseMetrics, sampleValue } from "../../http/test/_prometheus.js";
import { _parse } from "../src/_args.js";
import { LOG_OPTIONS, readLogSettings } from "../src/_serve-logs.js";
import { METRICS_OPTIONS, readMetricsSettings } from "../src/_serve-metrics.js";
import { baseEnv, closedPort, pd, type Served, serve, stop, tempDir, waitFor } from "./_helpers.js";

const TOKEN = "scrape-token-0123456789";

/** The JSON lines of the server's stderr (every line must be one). */
function logLines(server: Served): Array<Record<string, unknown>> {
  return server.output.stderr
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("pd serve --log-format json with metrics", () => {
  let server: Served;
  let metricsPort: number;
  beforeAll(async () => {
    metricsPort = await closedPort();
    server = await serve(
      [
        "--memory",
        "--log-format",
        "json",
        "--metrics-token",
        TOKEN,
        "--metrics-listen",
        `127.0.0.1:${metricsPort}`,
        // A component that cannot be interrupted is killed soon (the last test).
        ...["--http-timeout", "600ms", "--sandbox-kill-after", "300ms"],
      ],
      { cwd: tempDir(), env: baseEnv() },
    );
  }, 40_000);
  afterAll(async () => {
    if (server) await stop(server);
  });

  it("says in the banner how logs and metrics are served", () => {
    expect(server.output.stdout).toMatch(/^ {2}Logs: {5}json on stderr, level info$/m);
    expect(server.output.stdout).toContain(
      "/metrics on the API's address (Authorization: Bearer <metrics token>)",
    );
    expect(server.output.stdout).toContain(`http://127.0.0.1:${metricsPort}/metrics (no token`);
  });

  it("writes one JSON line per request with the request id the response carries", async () => {
    const auth = { authorization: `Bearer ${server.key}`, "content-type": "application/json" };
    const given = await fetch(`${server.url}/v1/webhooks`, {
      headers: { ...auth, "x-request-id": "trace-42" },
    });
    expect(given.status).toBe(200);
    expect(given.headers.get("x-request-id")).toBe("trace-42");
    const code = `export default { name: "Hi", version: "0.1.0", props: { http: "$.interface.http" }, run(e) { this.$emit(e.body); } };`;
    const created = await fetch(`${server.url}/v1/sources`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ component_code: code }),
    });
    const source = ((await created.json()) as { data: { id: string; endpoint_url: string } }).data;
    const hit = await fetch(`${server.url}${new URL(source.endpoint_url).pathname}`, {
      method: "POST",
      body: "{}",
    });
    expect(hit.status).toBe(200);
    const made = hit.headers.get("x-request-id");
    expect(made).toMatch(/^req_[0-9a-f-]{36}$/);

    const line = (id: string) =>
      waitFor(() => logLines(server).find((l) => l.request_id === id), 10_000, `the log line of ${id}`);
    const first = await line("trace-42");
    expect(first).toMatchObject({
      level: 30,
      msg: "request",
      method: "GET",
      path: "/v1/webhooks",
      route: "/v1/webhooks",
      status: 200,
    });
    expect(first.workspace_id).toMatch(/^ws_/);
    expect(typeof first.duration_ms).toBe("number");
    const ingress = await line(made as string);
    expect(ingress).toMatchObject({
      route: "/http/{endpoint_id}",
      status: 200,
      workspace_id: first.workspace_id,
      emitter_id: source.id,
    });
  });

  it("answers /healthz and /readyz with no key", async () => {
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(((await ready.json()) as { status: string }).status).toBe("ready");
  });

  it("serves /metrics with its token on the API's address, and without one on its own", async () => {
    expect((await fetch(`${server.url}/metrics`)).status).toBe(401);
    const scraped = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(scraped.status).toBe(200);
    const metrics = parseMetrics(await scraped.text());
    expect(
      sampleValue(metrics, "hookline_http_requests_total", { route: "/v1/sources", status: "200" }),
    ).toBe(1);
    expect(sampleValue(metrics, "hookline_ingress_requests_total", { kind: "source", status: "2xx" })).toBe(
      1,
    );
    expect(sampleValue(metrics, "hookline_emits_total", { emitter: "source" })).toBe(1);
    expect(sampleValue(metrics, "hookline_sandbox_pool", { measure: "threads" })).toBeGreaterThanOrEqual(1);
    expect(metrics.get("hookline_process_cpu_seconds_total")?.type).toBe("COUNTER");

    const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(own.status).toBe(200);
    const again = parseMetrics(await own.text());
    expect(sampleValue(again, "hookline_http_requests_total", { route: "/metrics", status: "401" })).toBe(1);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/v1/webhooks`)).status).toBe(404);
  });

  it("logs and counts a sandbox thread replaced after a component that could not be interrupted", async () => {
    const hang = `export default { name: "Hang", version: "0.1.0", props: { http: "$.interface.http" },
      run() { new Array(2 ** 32 - 1).join(""); } };`;
    const created = await fetch(`${server.url}/v1/sources`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.key}`, "content-type": "application/json" },
      body: JSON.stringify({ component_code: hang }),
    });
    const source = ((await created.json()) as { data: { endpoint_url: string } }).data;
    const hit = await fetch(`${server.url}${new URL(source.endpoint_url).pathname}`, {
      method: "POST",
      body: "{}",
    });
    await hit.arrayBuffer();
    const line = await waitFor(
      () => logLines(server).find((l) => l.msg === "sandbox thread replaced"),
      20_000,
      "the thread replaced line",
    );
    expect(line).toMatchObject({ level: 40, replaced: 1 });
    const scraped = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(sampleValue(parseMetrics(await scraped.text()), "hookline_sandbox_threads_replaced_total")).toBe(
      1,
    );
  });
});

describe("pd serve log and metrics flags", () => {
  const parse = (argv: string[]) => _parse("serve", argv, { ...LOG_OPTIONS, ...METRICS_OPTIONS });

  it("default to pretty logs on a terminal and JSON otherwise, at info; variables work too", () => {
    expect(readLogSettings(parse([]), {}, true)).toEqual({ format: "pretty", level: "info" });
    expect(readLogSettings(parse([]), {}, false)).toEqual({ format: "json", level: "info" });
    expect(
      readLogSettings(parse(["--log-level", "debug"]), { HOOKLINE_LOG_FORMAT: "pretty" }, false),
    ).toEqual({
      format: "pretty",
      level: "debug",
    });
    expect(() => readLogSettings(parse(["--log-format", "xml"]), {}, false)).toThrow(
      /^--log-format "xml": expected json or pretty$/,
    );
    expect(() => readLogSettings(parse(["--log-level", "loud"]), {}, false)).toThrow(
      /^--log-level "loud": expected one of/,
    );
  });

  it("leave /metrics off unless a token or an address is given", () => {
    expect(readMetricsSettings(parse([]), {})).toBeUndefined();
    expect(readMetricsSettings(parse(["--metrics-listen", "9464"]), {})).toEqual({
      listen: { host: "127.0.0.1", port: 9464 },
    });
    expect(
      readMetricsSettings(parse([]), {
        HOOKLINE_METRICS_LISTEN: "[::1]:9464",
        HOOKLINE_METRICS_TOKEN: TOKEN,
      }),
    ).toEqual({
      token: TOKEN,
      listen: { host: "::1", port: 9464 },
    });
    expect(() => readMetricsSettings(parse(["--metrics-token", "short"]), {})).toThrow(
      /at least 16 characters/,
    );
    expect(() => readMetricsSettings(parse(["--metrics-listen", "nope"]), {})).toThrow(/expected host:port/);
  });

  it("a bad --log-format stops pd serve with a usage error", async () => {
    const run = await pd(["serve", "--memory", "--port", "0", "--log-format", "xml"], {
      cwd: tempDir(),
      env: baseEnv(),
    });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toMatch(/^usage: --log-format "xml": expected json or pretty/m);
  });
});
