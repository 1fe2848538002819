/**
 * Server-sent events over `fetch` (the browser's EventSource cannot send the API key): parses the
 * stream with eventsource-parser, and reconnects with `Last-Event-ID` after a drop, so nothing is
 * missed or repeated.
 */
import { createParser } from "eventsource-parser";
import { useEffect, useRef, useState } from "preact/hooks";
import { type ApiError, apiBase, authHeaders } from "./api";
import { asApiError } from "./hooks";

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

/** A list read once, then kept up to date from a stream (see {@link useLiveFeed}). */
export interface LiveFeed<T> {
  items: T[];
  setItems: (update: (items: T[]) => T[]) => void;
  loaded: boolean;
  error: ApiError | undefined;
  state: StreamState;
}

/**
 * Reads a list with `load` (which also says where the stream resumes), then opens the stream at
 * `path` and folds each message of type `event` in with `merge`. Everything restarts when `path`
 * changes and stops on unmount.
 */
export function useLiveFeed<T>(
  path: string,
  event: string,
  load: () => Promise<{ items: T[]; lastEventId: string }>,
  merge: (items: T[], item: T) => T[],
): LiveFeed<T> {
  const [items, setItems] = useState<T[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState<ApiError | undefined>();
  const [state, setState] = useState<StreamState>("connecting");
  const fns = useRef({ load, merge });
  fns.current = { load, merge };
  useEffect(() => {
    let close = () => {};
    let stopped = false;
    void (async () => {
      try {
        const first = await fns.current.load();
        if (stopped) return;
        setItems(first.items);
        setLoaded(true);
        close = openStream(path, {
          lastEventId: first.lastEventId,
          onState: setState,
          onMessage(data, type) {
            if (type === event) setItems((prev) => fns.current.merge(prev, JSON.parse(data) as T));
          },
        });
      } catch (e) {
        if (!stopped) setError(asApiError(e));
      }
    })();
    return () => {
      stopped = true;
      close();
    };
  }, [path, event]);
  return { items, setItems, loaded, error, state };
}
