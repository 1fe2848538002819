/** Following streams until Ctrl-C, and printing log lines and events. */
import { DEFAULT_CHANNEL, type EventSummary } from "@hookline/core";
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

/** Prints one event; `prefix` labels the source in `pd dev`. @internal */
export function _printEvent(event: EventJson, json: boolean, prefix = ""): void {
  if (json) {
    out(JSON.stringify(event));
    return;
  }
  const time = new Date(event.indexed_at_ms).toISOString();
  const meta = event.metadata;
  const title = meta.summary ?? (meta.id !== null ? `id ${meta.id}` : event.id);
  const channel = meta.name && meta.name !== DEFAULT_CHANNEL ? ` [${meta.name}]` : "";
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
