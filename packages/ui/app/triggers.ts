/** How a source is triggered, in words: its HTTP endpoint or its timer schedule. */
import type { Prop } from "./types";

/** A timer prop's value: an interval or a cron expression. */
export interface TimerValue {
  intervalSeconds?: number;
  cron?: string;
  timezone?: string;
}

/** "every 15 minutes", "every 30 seconds". */
export function describeInterval(seconds: number): string {
  const units: [number, string][] = [
    [86400, "day"],
    [3600, "hour"],
    [60, "minute"],
  ];
  for (const [size, name] of units) {
    if (seconds % size === 0 && seconds >= size) {
      const n = seconds / size;
      return n === 1 ? `every ${name}` : `every ${n} ${name}s`;
    }
  }
  return seconds === 1 ? "every second" : `every ${seconds} seconds`;
}

/** A timer value in words, or undefined when it is not one. */
export function describeTimer(value: unknown): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const t = value as TimerValue;
  if (typeof t.intervalSeconds === "number") return describeInterval(t.intervalSeconds);
  if (typeof t.cron === "string") return `cron ${t.cron}${t.timezone ? ` (${t.timezone})` : ""}`;
  return undefined;
}

/** The schedule of a source's timer prop (its configured value, else the prop's default). */
export function timerSchedule(
  props: Prop[] | undefined,
  configured: Record<string, unknown>,
): string | undefined {
  const timer = props?.find((p) => p.type === "$.interface.timer");
  if (timer) return describeTimer(configured[timer.name] ?? timer.default) ?? "timer";
  // Without the component's description, recognise a timer by its value's shape.
  for (const value of Object.values(configured)) {
    const described = describeTimer(value);
    if (described) return described;
  }
  return undefined;
}

/** A workflow's trigger in words: its endpoint, schedule, source or "manual". */
export function describeWorkflowTrigger(t: import("./types").WorkflowTrigger): string {
  if (t.type === "http") return t.endpoint_url ? `HTTP ${t.endpoint_url}` : "HTTP";
  if (t.type === "timer") return `Timer: ${describeTimer(t) ?? "timer"}`;
  if (t.type === "source") return `Events of ${t.source_id}${t.event_name ? ` (${t.event_name})` : ""}`;
  return "Manual (RUN NOW)";
}

/** Epoch milliseconds of an API time given in seconds or milliseconds. */
export const toMs = (t: number): number => (t < 1e12 ? t * 1000 : t);

/** How long a run took, in ms, from its precise times; undefined while it runs. */
export function runDuration(e: {
  started_at_ms?: number | null;
  finished_at_ms?: number | null;
}): number | undefined {
  return typeof e.started_at_ms === "number" && typeof e.finished_at_ms === "number"
    ? e.finished_at_ms - e.started_at_ms
    : undefined;
}
