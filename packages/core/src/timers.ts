import { CronExpressionParser } from "cron-parser";
import Type, { type Static } from "typebox";
import { HooklineError, type Problem } from "./errors.js";
import { problem } from "./problems.js";

/** Schema of a timer configuration: `{ intervalSeconds }` or `{ cron, timezone? }`. */
export const TimerConfigSchema = Type.Union([
  Type.Object({ intervalSeconds: Type.Integer({ minimum: 1 }) }),
  Type.Object({ cron: Type.String({ minLength: 1 }), timezone: Type.Optional(Type.String()) }),
]);

/** A timer configuration: `{ intervalSeconds }` or `{ cron, timezone? }` (IANA time zone, default UTC). */
export type TimerConfig = Static<typeof TimerConfigSchema>;

/** Schema of the event an interval timer passes to `run(event)`. */
export const IntervalTimerEventSchema = Type.Object({
  timestamp: Type.Integer({ description: "When the tick ran, epoch seconds." }),
  interval_seconds: Type.Integer(),
});

/** Schema of the event a cron timer passes to `run(event)` (SPEC leaves it open: see docs/components.md). */
export const CronTimerEventSchema = Type.Object({
  timestamp: Type.Integer({ description: "When the tick ran, epoch seconds." }),
  cron: Type.String(),
  timezone: Type.String(),
});

/** Schema of every timer event. */
export const TimerEventSchema = Type.Union([IntervalTimerEventSchema, CronTimerEventSchema]);

/** The event a timer passes to `run(event)`. */
export type TimerEvent = Static<typeof TimerEventSchema>;

/**
 * Checks a timer configuration; the cron expression and time zone must parse.
 *
 * @example
 * ```ts
 * validateTimerConfig({ intervalSeconds: 0 }); // [{ code: "invalid_timer", ... }]
 * ```
 */
export function validateTimerConfig(config: unknown, path = ""): Problem[] {
  if (typeof config !== "object" || config === null || Array.isArray(config)) {
    return [problem("invalid_timer", path, "a timer is configured as { intervalSeconds } or { cron }")];
  }
  const c = config as Record<string, unknown>;
  if ("intervalSeconds" in c && "cron" in c) {
    return [problem("invalid_timer", path, "give either intervalSeconds or cron, not both")];
  }
  if ("intervalSeconds" in c) {
    return Number.isSafeInteger(c.intervalSeconds) && (c.intervalSeconds as number) >= 1
      ? []
      : [problem("invalid_timer", path, "intervalSeconds must be an integer of at least 1")];
  }
  if (typeof c.cron === "string" && c.cron.trim() !== "") {
    if (c.timezone !== undefined && typeof c.timezone !== "string") {
      return [problem("invalid_timer", path, "timezone must be an IANA time zone name")];
    }
    try {
      CronExpressionParser.parse(c.cron, { tz: (c.timezone as string | undefined) ?? "UTC" }).next();
      return [];
    } catch (error) {
      return [problem("invalid_timer", path, `cron "${c.cron}" does not parse: ${(error as Error).message}`)];
    }
  }
  return [problem("invalid_timer", path, "a timer is configured as { intervalSeconds } or { cron }")];
}

function assertTimer(config: unknown): asserts config is TimerConfig {
  const problems = validateTimerConfig(config);
  if (problems.length > 0) throw new HooklineError("invalid_timer", problems[0]?.message ?? "invalid timer");
}

/**
 * The first fire time strictly after `afterMs` (epoch ms). Intervals count from `afterMs`; cron
 * expressions are evaluated in the timer's time zone (UTC by default).
 *
 * @example
 * ```ts
 * nextFireAt({ intervalSeconds: 60 }, 0); // 60000
 * nextFireAt({ cron: "0 9 * * *", timezone: "Europe/Paris" }, Date.parse("2026-01-01T00:00:00Z"));
 * // Date.parse("2026-01-01T08:00:00Z")
 * ```
 */
export function nextFireAt(config: TimerConfig, afterMs: number): number {
  assertTimer(config);
  if ("intervalSeconds" in config) return afterMs + config.intervalSeconds * 1000;
  const expression = CronExpressionParser.parse(config.cron, {
    currentDate: new Date(afterMs),
    tz: config.timezone ?? "UTC",
  });
  return expression.next().getTime();
}

/**
 * The next `count` fire times after `afterMs`.
 *
 * @example
 * ```ts
 * nextFireTimes({ intervalSeconds: 30 }, 0, 3); // [30000, 60000, 90000]
 * ```
 */
export function nextFireTimes(config: TimerConfig, afterMs: number, count: number): number[] {
  const times: number[] = [];
  let at = afterMs;
  for (let i = 0; i < count; i++) {
    at = nextFireAt(config, at);
    times.push(at);
  }
  return times;
}

/**
 * Decides what a scheduler does when it wakes at `now` for a tick scheduled at `scheduledAt`:
 * nothing yet (`fire: false`), or one run and the next schedule. After downtime that missed many
 * ticks there is one catch-up run, never a burst: the next tick is computed from `now`.
 *
 * @example
 * ```ts
 * planTick({ intervalSeconds: 60 }, 60_000, 10 * 60_000);
 * // { fire: true, next: 11 * 60_000, missed: 9 }
 * ```
 */
export function planTick(
  config: TimerConfig,
  scheduledAt: number,
  now: number,
): { fire: boolean; next: number; missed: number } {
  if (now < scheduledAt) return { fire: false, next: scheduledAt, missed: 0 };
  let missed = 0;
  let at = scheduledAt;
  // Count the ticks skipped (for logs), bounded so a long outage stays cheap.
  while (missed < 1000) {
    at = nextFireAt(config, at);
    if (at > now) break;
    missed++;
  }
  return { fire: true, next: missed === 0 ? at : nextFireAt(config, now), missed };
}

/**
 * The event a timer passes to `run(event)` for a tick at `firedAtMs`: `{ timestamp,
 * interval_seconds }` for intervals (SPEC), `{ timestamp, cron, timezone }` for cron.
 *
 * @example
 * ```ts
 * timerEvent({ intervalSeconds: 900 }, 1_700_000_000_000);
 * // { timestamp: 1700000000, interval_seconds: 900 }
 * ```
 */
export function timerEvent(config: TimerConfig, firedAtMs: number): TimerEvent {
  const timestamp = Math.floor(firedAtMs / 1000);
  if ("intervalSeconds" in config) return { timestamp, interval_seconds: config.intervalSeconds };
  return { timestamp, cron: config.cron, timezone: config.timezone ?? "UTC" };
}
