/** Every `pd serve` limit flag and variable lands on the engine or handler option it names. */
import { describe, expect, it } from "vitest";
import { _parse } from "../src/_args.js";
import { outboundLine, readServeSettings, SETTING_OPTIONS, SETTINGS } from "../src/_serve-settings.js";

const read = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
  readServeSettings(_parse("serve", argv, SETTING_OPTIONS), env);

describe("pd serve settings", () => {
  it("map each flag to its option, with units", () => {
    const settings = read([
      ...["--run-timeout", "2s", "--options-timeout", "1500ms", "--sandbox-memory", "32mb"],
      ...["--result-limit", "512kb", "--keep-events", "50", "--keep-logs", "20"],
      ...["--retry-schedule", "1s,1m,1h", "--attempt-timeout", "3s", "--delivery-concurrency", "8"],
      ...["--webhook-concurrency", "2", "--disable-after", "2d", "--body-limit", "2mb"],
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
        optionsTimeoutMs: 1500,
        memoryBytes: 32 * 1024 ** 2,
        resultBytes: 512 * 1024,
      },
      retention: { events: 50, logs: 20 },
      worker: {
        retrySchedule: [1000, 60_000, 3_600_000],
        attemptTimeoutMs: 3000,
        concurrency: 8,
        perWebhookConcurrency: 2,
        disableAfterMs: 2 * 86_400_000,
      },
      allowList: ["10.0.0.0/8", "hooks.internal", "192.168.1.5"],
      allowPrivateUrls: true,
    });
    expect(settings.handler).toEqual({
      bodyLimit: 2 * 1024 ** 2,
      rateLimit: { requests: 100, windowMs: 10_000 },
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
      list: "7",
      flag: "1",
    };
    const env = Object.fromEntries(SETTINGS.map((s) => [s.env, sample[s.kind]]));
    const fromEnv = read([], { ...env, HOOKLINE_ALLOW_PRIVATE_URLS: "0" });
    expect(fromEnv.engine.limits).toEqual({
      runTimeoutMs: 7000,
      optionsTimeoutMs: 7000,
      memoryBytes: 7 * 1024 ** 2,
      resultBytes: 7 * 1024 ** 2,
    });
    expect(fromEnv.engine.retention).toEqual({ events: 7, logs: 7 });
    expect(fromEnv.engine.worker).toMatchObject({
      retrySchedule: [7000, 420_000],
      attemptTimeoutMs: 7000,
      concurrency: 7,
    });
    expect(fromEnv.engine.allowPrivateUrls).toBeUndefined();
    expect(fromEnv.handler.rateLimit).toBe(false);
    expect(fromEnv.engine.allowList).toEqual(["127.0.0.0/8", "::1", "localhost", "7"]);
    expect(outboundLine(fromEnv)).toBe(
      "allowed: loopback (--dev: 127.0.0.0/8, ::1, localhost); 7 (--allow-url); other private addresses refused (SSRF guard)",
    );
    expect(read(["--keep-events", "3"], { HOOKLINE_KEEP_EVENTS: "9" }).engine.retention?.events).toBe(3);
    const none = read([]);
    expect(none).toEqual({ engine: { worker: {} }, handler: {}, given: [] });
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
    expect(() => read([], { HOOKLINE_BODY_LIMIT: "big" })).toThrow(
      /^HOOKLINE_BODY_LIMIT "big": expected a size/,
    );
  });
});
