/**
 * Server-sent events over `fetch` (the browser's EventSource cannot send the API key): parses the
 * stream with eventsource-parser, and reconnects with `Last-Event-ID` after a drop, so nothing is
 * missed or repeated.
 */
import { createParser } from "eventsource-parser";
import { apiBase, authHeaders } from "./api";

/** Stream states shown to the user. */
export type StreamState = "connecting" | "live" | "reconnecting" | "closed";

/** Options of {@link openStream}. */
export interface StreamOptions {
  /** Resume after this id (the seq of the newest item already shown). */
  lastEventId?: string;
  onMessage(data: string, event: string | undefined): void;
  onState?(state: StreamState): void;
}

/** Opens the stream at `path`; the returned function closes it. */
export function openStream(path: string, options: StreamOptions): () => void {
  const controller = new AbortController();
  let lastId = options.lastEventId;
  let delay = 500;
  const setState = (s: StreamState) => options.onState?.(s);

  async function connect(): Promise<void> {
    setState(lastId === options.lastEventId ? "connecting" : "reconnecting");
    const res = await fetch(`${apiBase()}${path}`, {
      headers: {
        ...authHeaders(),
        accept: "text/event-stream",
        ...(lastId !== undefined ? { "last-event-id": lastId } : {}),
      },
      signal: controller.signal,
      cache: "no-store",
    });
    // An unknown source or a revoked key does not come back by retrying.
    if (res.status === 401 || res.status === 404) controller.abort();
    if (!res.ok || !res.body) throw new Error(`stream answered ${res.status}`);
    setState("live");
    delay = 500;
    const parser = createParser({
      onEvent(message) {
        if (message.id) lastId = message.id;
        options.onMessage(message.data, message.event);
      },
    });
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parser.feed(value);
    }
  }

  void (async () => {
    while (!controller.signal.aborted) {
      try {
        await connect();
      } catch {
        // Dropped or refused: try again below, unless closed.
      }
      if (controller.signal.aborted) break;
      setState("reconnecting");
      await new Promise((ok) => setTimeout(ok, delay));
      delay = Math.min(delay * 2, 10_000);
    }
    setState("closed");
  })();

  return () => controller.abort();
}
