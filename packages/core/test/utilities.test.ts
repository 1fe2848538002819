import {
  assertRespond,
  CHANNEL_NAME_MAX_LENGTH,
  CHANNEL_NAME_RULE,
  DEFAULT_CHANNEL,
  HooklineError,
  idTime,
  isId,
  newId,
  nextFireAt,
  nextFireTimes,
  planTick,
  slugify,
  timerEvent,
  uniqueSlug,
  validateChannelName,
  validateEmitMeta,
  validateRespond,
  validateTimerConfig,
} from "@hookline/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

describe("ids", () => {
  it.each(["wh", "dc", "sc", "sub", "evt"])("%s_ ids are URL-safe and carry their prefix", (prefix) => {
    const id = newId(prefix);
    expect(id).toMatch(new RegExp(`^${prefix}_[0-9a-z]{26}$`));
    expect(encodeURIComponent(id)).toBe(id);
    expect(isId(id, prefix)).toBe(true);
    expect(isId(id, "xx")).toBe(false);
  });

  it("are random", () => {
    const set = new Set(Array.from({ length: 1000 }, () => newId("evt")));
    expect(set.size).toBe(1000);
  });

  it("draw a fresh random part for each millisecond (past the random pool's 256 ids)", () => {
    const randomParts = Array.from({ length: 1000 }, (_, i) => newId("evt", 5_000 + i).slice(-16));
    expect(new Set(randomParts).size).toBe(1000);
  });

  it("sort by creation time, also within one millisecond", () => {
    const ids = [newId("evt", 1000), newId("evt", 1000), newId("evt", 2000), newId("evt", 1_700_000_000_000)];
    expect([...ids].sort()).toEqual(ids);
    expect(idTime(ids[3] as string)).toBe(1_700_000_000_000);
  });

  it("property: string order follows time order", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 47 }), fc.integer({ min: 0, max: 2 ** 47 }), (a, b) => {
        fc.pre(a !== b);
        expect(newId("dc", a) < newId("dc", b)).toBe(a < b);
      }),
    );
  });
});

describe("slugs", () => {
  it("slugify", () => {
    expect(slugify("New Issue (GitHub)!")).toBe("new-issue-github");
    expect(slugify("  Ça marche  ")).toBe("ca-marche");
  });

  it("auto-increments when not unique", () => {
    expect(uniqueSlug("My Source", [])).toBe("my-source");
    expect(uniqueSlug("My Source", ["my-source"])).toBe("my-source-1");
    expect(uniqueSlug("My Source", ["my-source", "my-source-1"])).toBe("my-source-2");
    expect(uniqueSlug("My Source", ["my-source", "my-source-2"])).toBe("my-source-1");
    expect(uniqueSlug("!!!", [])).toBe("component");
  });

  it("property: the result is never taken and starts with the slug", () => {
    fc.assert(
      fc.property(fc.string(), fc.array(fc.string()), (name, taken) => {
        const slug = uniqueSlug(name, taken);
        expect(taken.includes(slug)).toBe(false);
        expect(slug.startsWith(slugify(name) || "component")).toBe(true);
      }),
    );
  });
});

describe("timers", () => {
  const t0 = Date.parse("2026-01-01T00:00:00Z");

  it("intervals fire every intervalSeconds", () => {
    expect(nextFireTimes({ intervalSeconds: 30 }, t0, 3)).toEqual([t0 + 30_000, t0 + 60_000, t0 + 90_000]);
  });

  it("cron fires in its time zone", () => {
    expect(new Date(nextFireAt({ cron: "0 9 * * *" }, t0)).toISOString()).toBe("2026-01-01T09:00:00.000Z");
    expect(new Date(nextFireAt({ cron: "0 9 * * *", timezone: "America/New_York" }, t0)).toISOString()).toBe(
      "2026-01-01T14:00:00.000Z",
    );
    expect(nextFireTimes({ cron: "*/15 * * * *" }, t0, 2)).toEqual([t0 + 900_000, t0 + 1_800_000]);
  });

  it("after downtime there is one catch-up run, not a burst", () => {
    expect(planTick({ intervalSeconds: 60 }, t0 + 60_000, t0 + 30_000)).toEqual({
      fire: false,
      next: t0 + 60_000,
      missed: 0,
    });
    expect(planTick({ intervalSeconds: 60 }, t0 + 60_000, t0 + 60_000)).toEqual({
      fire: true,
      next: t0 + 120_000,
      missed: 0,
    });
    expect(planTick({ intervalSeconds: 60 }, t0 + 60_000, t0 + 3_600_000 + 5)).toEqual({
      fire: true,
      next: t0 + 3_660_000 + 5,
      missed: 59,
    });
  });

  it("trigger events: SPEC's interval shape and the documented cron shape", () => {
    expect(timerEvent({ intervalSeconds: 900 }, 1_700_000_000_999)).toEqual({
      timestamp: 1_700_000_000,
      interval_seconds: 900,
    });
    expect(timerEvent({ cron: "0 * * * *" }, 1_700_000_000_000)).toEqual({
      timestamp: 1_700_000_000,
      cron: "0 * * * *",
      timezone: "UTC",
    });
  });

  it.each([
    [{ intervalSeconds: 60 }, 0],
    [{ cron: "0 0 * * 1" }, 0],
    [{ cron: "0 0 * * *", timezone: "Europe/Paris" }, 0],
    [{ intervalSeconds: 0 }, 1],
    [{ intervalSeconds: 1.5 }, 1],
    [{ cron: "61 * * * *" }, 1],
    [{ cron: "0 0 * * *", timezone: "Mars/Olympus" }, 1],
    [{ intervalSeconds: 60, cron: "* * * * *" }, 1],
    ["60", 1],
  ])("validateTimerConfig(%j) finds %i problem(s)", (config, count) => {
    const problems = validateTimerConfig(config);
    expect(problems).toHaveLength(count);
    for (const p of problems) expect(p.code).toBe("invalid_timer");
  });

  it("nextFireAt refuses an invalid config", () => {
    expect(() => nextFireAt({ intervalSeconds: -1 }, 0)).toThrow(HooklineError);
  });
});

describe("respond()", () => {
  it.each([
    [{ status: 200 }, { status: 200, headers: {} }],
    [
      { status: "201", body: "ok" },
      { status: 201, headers: {}, body: "ok" },
    ],
    [{ status: 100 }, { status: 100, headers: {} }],
    [
      { status: 599, headers: { "X-A": 1 }, body: { a: 1 } },
      { status: 599, headers: { "x-a": "1" }, body: { a: 1 } },
    ],
    [
      { status: 200, body: new Uint8Array([1]) },
      { status: 200, headers: {}, body: new Uint8Array([1]) },
    ],
    [
      { status: 200, body: { type: "Buffer", data: [104] } },
      { status: 200, headers: {}, body: { type: "Buffer", data: [104] } },
    ],
  ])("accepts %j", (args, value) => {
    expect(validateRespond(args)).toEqual({ value, problems: [], warnings: [] });
  });

  it.each([
    ["content-length", "2", "the server sets it"],
    ["Transfer-Encoding", "chunked", "the server sets it"],
    ["connection", "close", "the server sets it"],
    ["keep-alive", "timeout=5", "the server sets it"],
    ["upgrade", "h2c", "the server sets it"],
    ["te", "trailers", "the server sets it"],
    ["trailer", "x", "the server sets it"],
    ["host", "evil.test", "the server sets it"],
    ["proxy-authenticate", "Basic", "the server sets it"],
    ["x a", "1", "not an HTTP token"],
    ["", "1", "not an HTTP token"],
    ["x:y", "1", "not an HTTP token"],
    ["x-\u00e9", "1", "not an HTTP token"],
    ["x-split", "a\r\nset-cookie: b=1", "character HTTP cannot carry"],
    ["x-lf", "a\nb", "character HTTP cannot carry"],
    ["x-nul", "a\u0000b", "character HTTP cannot carry"],
    ["x-emoji", "\u{1f600}", "character HTTP cannot carry"],
    ["x-long", "a".repeat(8193), "over 8192 characters"],
  ])("leaves out header %j (%j) with a warning and sends the rest", (name, value, why) => {
    const check = validateRespond({ status: 200, headers: { [name]: value, "x-ok": "yes" }, body: "hello" });
    expect(check.problems).toEqual([]);
    expect(check.value).toEqual({ status: 200, headers: { "x-ok": "yes" }, body: "hello" });
    expect(check.warnings).toHaveLength(1);
    expect(check.warnings[0]).toContain(why);
    expect(check.warnings[0]).toContain(JSON.stringify(name).slice(0, 20));
  });

  it("keeps Latin-1 text, tabs and surrounding spaces trimmed; caps the number of headers", () => {
    expect(validateRespond({ status: 200, headers: { "x-a": " caf\u00e9\tok " } }).value?.headers).toEqual({
      "x-a": "caf\u00e9\tok",
    });
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`x-${i}`, "v"]));
    const check = validateRespond({ status: 200, headers: many });
    expect(Object.keys(check.value?.headers ?? {})).toHaveLength(100);
    expect(check.warnings).toEqual(['respond(): header "x-100" left out: over 100 headers']);
  });

  it.each([
    [{}, "required", "status"],
    [{ status: 99 }, "invalid_value", "status"],
    [{ status: 600 }, "invalid_value", "status"],
    [{ status: "abc" }, "invalid_type", "status"],
    [{ status: 200.5 }, "invalid_value", "status"],
    [{ status: 200, headers: "x" }, "invalid_type", "headers"],
    [{ status: 200, headers: { a: { b: 1 } } }, "invalid_type", "headers.a"],
    [{ status: 200, body: () => 1 }, "invalid_type", "body"],
    [null, "invalid_type", ""],
  ])("refuses %j", (args, code, path) => {
    expect(validateRespond(args).problems.map((p) => [p.code, p.path])).toEqual([[code, path]]);
  });

  it("assertRespond throws invalid_respond", () => {
    expect(() => assertRespond({ status: 700 })).toThrow(
      expect.objectContaining({ code: "invalid_respond", status: 422 }),
    );
  });
});

describe("emit metadata", () => {
  it("accepts SPEC's fields", () => {
    expect(validateEmitMeta({ id: "a", name: "ch", summary: "s", ts: 1_700_000_000_000 })).toEqual([]);
    expect(validateEmitMeta({ id: 5 })).toEqual([]);
    expect(validateEmitMeta(undefined)).toEqual([]);
  });

  it.each([
    [{ id: {} }, "id"],
    [{ id: Number.NaN }, "id"],
    [{ name: "" }, "name"],
    [{ summary: 3 }, "summary"],
    [{ ts: "yesterday" }, "ts"],
    [{ ts: 1.5 }, "ts"],
    ["meta", ""],
  ])("refuses %j", (meta, path) => {
    expect(validateEmitMeta(meta).map((p) => p.path)).toEqual([path]);
  });

  it("the default channel is named default", () => {
    expect(DEFAULT_CHANNEL).toBe("default");
  });
});

describe("channel names", () => {
  it.each([
    "default",
    "$errors",
    "orders.created",
    "new star",
    "a",
    "~!@#$%^&*()_+{}|:<>?`-=[]\\;',./\"",
    "x".repeat(CHANNEL_NAME_MAX_LENGTH),
  ])("accepts %j", (name) => {
    expect(validateChannelName(name)).toEqual([]);
    expect(validateEmitMeta({ name })).toEqual([]);
  });

  it.each([
    ["", "invalid_type"],
    [42, "invalid_type"],
    ["x".repeat(CHANNEL_NAME_MAX_LENGTH + 1), "invalid_value"],
    ["new\nline", "invalid_value"],
    ["cr\rlf", "invalid_value"],
    ["tab\there", "invalid_value"],
    ["nul\u0000", "invalid_value"],
    ["del\u007f", "invalid_value"],
    ["café", "invalid_value"],
    ["🎉", "invalid_value"],
    [" leading", "invalid_value"],
    ["trailing ", "invalid_value"],
    [" ", "invalid_value"],
  ])("refuses %j (%s)", (name, code) => {
    const problems = validateChannelName(name);
    expect(problems.map((p) => [p.code, p.path])).toEqual([[code, "name"]]);
    expect(validateEmitMeta({ name }).map((p) => p.path)).toEqual(["name"]);
  });

  it("names the rule in the problem, under the path given", () => {
    expect(validateChannelName("a\nb", "event_name")).toEqual([
      { code: "invalid_value", path: "event_name", message: `the channel name must be ${CHANNEL_NAME_RULE}` },
    ]);
    expect(CHANNEL_NAME_RULE).toMatch(/^1 to 128 printable ASCII characters/);
  });
});
