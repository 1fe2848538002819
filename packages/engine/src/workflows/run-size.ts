/**
 * The size cap of a workflow run (`limits.maxExecutionBytes`, 6 MB by default, Pipedream's limit):
 * the trigger event, plus every step's return value, exports and logs, counted as the bytes of
 * their JSON text (log lines by their message). An HTTP event counts its body once (`bodyRaw`; the
 * parsed `body` is left out). Over the cap, the step that brought the run there fails with
 * `execution_too_large` (413) naming what was too large; an event over it is refused before a run
 * starts.
 */
import { HooklineError } from "@hookline/core";
import type { ExecutionStep } from "@hookline/store";

const bytes = (value: unknown): number =>
  value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value) ?? "", "utf8");

const fmt = (n: number) => n.toLocaleString("en-US");

/** The bytes an event counts for: its JSON text, an HTTP event's parsed `body` left out. @internal */
export function eventBytes(event: unknown): number {
  if (event && typeof event === "object" && !Array.isArray(event) && "bodyRaw" in event) {
    const { body: _parsed, ...rest } = event as Record<string, unknown>;
    return bytes(rest);
  }
  return bytes(event);
}

/** `execution_too_large` (413) for an event over the cap, before a run starts. @internal */
export function checkEventSize(limit: number, event: unknown): void {
  const size = eventBytes(event);
  if (size <= limit) return;
  throw new HooklineError(
    "execution_too_large",
    `The trigger event is ${fmt(size)} bytes, over the ${fmt(limit)}-byte cap of a workflow run`,
    { what: "event", bytes: size, limit },
  );
}

/** What a step's record weighs: its return value and exports, and its logs. */
function stepBytes(record: ExecutionStep): { outputs: number; logs: number } {
  let logs = 0;
  for (const line of record.logs) logs += Buffer.byteLength(line.message, "utf8");
  return { outputs: bytes(record.returnValue) + bytes(record.exports), logs };
}

/** The bytes a run has used so far, charged step by step. @internal */
export interface RunBudget {
  /**
   * Adds a finished step's record. Over the cap, it drops the step's return value and exports (and
   * the log lines past the cap) from the record and throws `execution_too_large` naming them.
   */
  charge(record: ExecutionStep): void;
  /** Adds a step recorded earlier (a replay's copy) without checking: it was within the cap then. */
  add(record: ExecutionStep): void;
}

/** A run's budget, starting with its event. @internal */
export function runBudget(limit: number, event: unknown): RunBudget {
  let used = eventBytes(event);
  return {
    add(record) {
      const { outputs, logs } = stepBytes(record);
      used += outputs + logs;
    },
    charge(record) {
      const { outputs, logs } = stepBytes(record);
      if (used + outputs + logs <= limit) {
        used += outputs + logs;
        return;
      }
      const what = outputs >= logs ? "return value and exports" : "logs";
      const total = used + outputs + logs;
      const message =
        `The ${what} of step ${record.name} (${fmt(outputs)} bytes of return value and exports, ` +
        `${fmt(logs)} bytes of logs) bring the run to ${fmt(total)} bytes, over its ${fmt(limit)}-byte cap ` +
        `(the event and every step's return value, exports and logs together)`;
      delete record.returnValue;
      delete record.exports;
      delete record.summary;
      // Keep the first log lines that fit.
      let room = Math.max(0, limit - used);
      const kept = [];
      for (const line of record.logs) {
        const size = Buffer.byteLength(line.message, "utf8");
        if (size > room) break;
        room -= size;
        kept.push(line);
      }
      record.logs = kept;
      used = limit;
      throw new HooklineError("execution_too_large", message, {
        what: what === "logs" ? "logs" : "exports",
        step: record.name,
        bytes: total,
        limit,
      });
    },
  };
}
