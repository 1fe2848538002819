/** Following streams until Ctrl-C, and printing log lines and events. */
import type { EventSummary } from "@hookline/core";
import type { SseMessage } from "./_api.js";
import { out, style } from "./_output.js";

/** An AbortSignal that aborts on SIGINT/SIGTERM (and then lets the process exit 0). @internal */
export function _untilInterrupted(): AbortController {
  const controller = new AbortController();
  const stop = () => controller.abort();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  controller.signal.addEventListener("abort", () => {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  });
  return controller;
}

/** A log line as the API returns it. */
export interface LogJson {
  seq: number;
  level: string;
  message: string;
  ts: number;
}

/** An event summary as the API returns it (core's shape). */
export type EventJson = EventSummary;

const levelStyle: Record<string, (t: string) => string> = {
  error: (t) => style.red(t),
  warn: (t) => style.yellow(t),
  info: (t) => style.cyan(t),
};

/** Prints one log line; `prefix` labels the source in `pd dev`. @internal */
export function _printLog(log: LogJson, json: boolean, prefix = ""): void {
  if (json) {
    out(JSON.stringify(log));
    return;
  }
  const time = new Date(log.ts).toISOString();
  const level = (levelStyle[log.level] ?? ((t: string) => t))(log.level.padEnd(5));
  out(`${prefix}${style.dim(time)} ${level} ${log.message}`);
}

/** The default channel's name, once {@link _loadEventPrinting} has read it from @hookline/core. */
let defaultChannel: string | undefined;

/**
 * Loads what {@link _printEvent} needs from @hookline/core. The client commands import core lazily
 * (its dependencies cost a fraction of a second at every start), so a command that prints events
 * calls this first. @internal
 */
export async function _loadEventPrinting(): Promise<void> {
  defaultChannel ??= (await import("@hookline/core")).DEFAULT_CHANNEL;
}

/** Prints one event; `prefix` labels the source in `pd dev`. @internal */
export function _printEvent(event: EventJson, json: boolean, prefix = ""): void {
  if (json) {
    out(JSON.stringify(event));
    return;
  }
  if (defaultChannel === undefined) throw new Error("_printEvent before _loadEventPrinting");
  const time = new Date(event.indexed_at_ms).toISOString();
  const meta = event.metadata;
  const title = meta.summary ?? (meta.id !== null ? `id ${meta.id}` : event.id);
  const channel = meta.name && meta.name !== defaultChannel ? ` [${meta.name}]` : "";
  out(`${prefix}${style.dim(time)} ${style.green("emit")}${channel} ${style.bold(title)}`);
  if (event.event !== undefined) out(`${prefix}  ${JSON.stringify(event.event)}`);
}

/** Parses the JSON payload of an SSE message, or undefined. @internal */
export function _sseJson<T>(message: SseMessage): T | undefined {
  try {
    return JSON.parse(message.data) as T;
  } catch {
    return undefined;
  }
}
