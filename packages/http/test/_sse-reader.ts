import { createParser, type EventSourceMessage } from "eventsource-parser";

/** An open SSE response, parsed by eventsource-parser (no hand parsing). */
export interface SseReader {
  messages: EventSourceMessage[];
  comments: string[];
  close(): Promise<void>;
}

/** Reads the SSE `res` in the background until `close()` aborts `controller` (the request's). */
export function readSse(res: Response, controller: AbortController): SseReader {
  const messages: EventSourceMessage[] = [];
  const comments: string[] = [];
  const parser = createParser({ onEvent: (m) => messages.push(m), onComment: (c) => comments.push(c) });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const pump = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted
    }
  })();
  return {
    messages,
    comments,
    async close() {
      controller.abort();
      await reader.cancel().catch(() => undefined);
      await pump;
    },
  };
}
