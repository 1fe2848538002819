import { describe, expect, it } from "vitest";
import {
  classifyResponse,
  DEFAULT_RETRY_SCHEDULE_MS,
  MAX_RETRY_AFTER_MS,
  nextRetryDelay,
  parseRetryAfter,
} from "../src/retry-schedule.js";

describe("DEFAULT_RETRY_SCHEDULE_MS", () => {
  it("follows DESIGN.md's schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h", () => {
    const h = 3_600_000;
    expect(DEFAULT_RETRY_SCHEDULE_MS).toEqual([
      5_000,
      300_000,
      1_800_000,
      2 * h,
      5 * h,
      10 * h,
      14 * h,
      20 * h,
      24 * h,
    ]);
    expect(Object.isFrozen(DEFAULT_RETRY_SCHEDULE_MS)).toBe(true);
  });
});

describe("nextRetryDelay", () => {
  it("returns the scheduled delay without jitter", () => {
    expect(DEFAULT_RETRY_SCHEDULE_MS.map((_, i) => nextRetryDelay(i + 1, undefined, 0))).toEqual(
      DEFAULT_RETRY_SCHEDULE_MS,
    );
  });

  it("returns undefined when exhausted", () => {
    expect(nextRetryDelay(9, undefined, 0)).toBe(24 * 3_600_000);
    expect(nextRetryDelay(10)).toBeUndefined();
    expect(nextRetryDelay(100)).toBeUndefined();
    expect(nextRetryDelay(2, [1000])).toBeUndefined();
  });

  it("applies ±jitter", () => {
    expect(nextRetryDelay(1, undefined, 0.2, () => 0)).toBe(4_000);
    expect(nextRetryDelay(1, undefined, 0.2, () => 0.5)).toBe(5_000);
    expect(nextRetryDelay(1, undefined, 0.2, () => 0.999999)).toBe(6_000);
    for (let i = 0; i < 100; i++) {
      const delay = nextRetryDelay(2)!;
      expect(delay).toBeGreaterThanOrEqual(240_000);
      expect(delay).toBeLessThanOrEqual(360_000);
    }
  });

  it("uses a custom schedule", () => {
    expect(nextRetryDelay(1, [10, 20], 0)).toBe(10);
    expect(nextRetryDelay(2, [10, 20], 0)).toBe(20);
  });

  it("rejects invalid arguments", () => {
    expect(() => nextRetryDelay(0)).toThrow(RangeError);
    expect(() => nextRetryDelay(1.5)).toThrow(RangeError);
    expect(() => nextRetryDelay(1, undefined, 2)).toThrow(RangeError);
    expect(() => nextRetryDelay(1, undefined, Number.NaN)).toThrow(RangeError);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.UTC(2025, 0, 1, 12, 0, 0);

  it("parses delay-seconds", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
  });

  it("parses HTTP dates", () => {
    expect(parseRetryAfter(new Date(now + 90_000).toUTCString(), now)).toBe(90_000);
    expect(parseRetryAfter("Wed, 01 Jan 2025 12:01:00 GMT", now)).toBe(60_000);
    expect(parseRetryAfter("Tue, 31 Dec 2024 12:00:00 GMT", now)).toBe(0);
  });

  it("caps at 24 hours", () => {
    expect(parseRetryAfter("999999", now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter(new Date(now + 48 * 3_600_000).toUTCString(), now)).toBe(MAX_RETRY_AFTER_MS);
  });

  it("returns undefined for missing or invalid values", () => {
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter("", now)).toBeUndefined();
    expect(parseRetryAfter("soon", now)).toBeUndefined();
    expect(parseRetryAfter("-5", now)).toBeUndefined();
    expect(parseRetryAfter("1.5", now)).toBeUndefined();
  });
});

describe("classifyResponse", () => {
  it.each([
    [200, "success"],
    [201, "success"],
    [204, "success"],
    [299, "success"],
    [100, "retry"],
    [301, "retry"],
    [302, "retry"],
    [307, "retry"],
    [400, "retry"],
    [401, "retry"],
    [404, "retry"],
    [429, "retry"],
    [500, "retry"],
    [503, "retry"],
    [410, "disable"],
    [0, "fail"],
    [99, "fail"],
    [600, "fail"],
    [200.5, "fail"],
  ] as const)("%d → %s", (status, expected) => {
    expect(classifyResponse(status)).toBe(expected);
  });
});
