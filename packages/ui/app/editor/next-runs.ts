/**
 * The next runs of a schedule, computed in the browser with core's timer rules (the same code the
 * server fires by, cron expressions in their time zone). Loaded only when a schedule is shown.
 */
import { nextFireTimes, type TimerConfig, validateTimerConfig } from "@hookline/core";

/** The next `count` runs after now (epoch ms), or the schedule's problem. */
export function nextRuns(
  config: { intervalSeconds?: number; cron?: string; timezone?: string },
  count = 3,
): { times: number[] } | { problem: string } {
  const problems = validateTimerConfig(config);
  if (problems.length > 0) return { problem: problems.map((p) => p.message).join("; ") };
  try {
    return { times: nextFireTimes(config as TimerConfig, Date.now(), count) };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}
