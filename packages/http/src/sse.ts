/**
 * Server-sent event streams of a source's emits and logs. Every message has an `id:` (the
 * event's or log line's sequence number); a client that reconnects with `Last-Event-ID` first gets
 * what it missed, then live messages, without gaps or repeats. A comment heartbeat keeps proxies
 * from closing idle streams.
 */
import { eventSummary } from "@hookline/core";
import type { Hookline, HooklineEvents } from "@hookline/engine";
import type { StoredEvent } from "@hookline/store";
import Type from "typebox";
import { defineRoute, type RouteContext } from "./_define.js";
import { logJson } from "./_json.js";

interface StreamSpec<T> {
  /** Items after `lastId`, oldest first. */
  backlog(ctx: RouteContext, sourceId: string, lastId: number): Promise<T[]>;
  /** Subscribes to live items of this source; returns the unsubscribe function. */
  live(hookline: Hookline, sourceId: string, push: (item: T) => void): () => void;
  seq(item: T): number;
  event: string;
  json(item: T): unknown;
}

const encoder = new TextEncoder();

/** Live messages without an id (not resumable), such as a workflow's `$.send.sse`. */
type Extra = (hookline: Hookline, id: string, push: (event: string, data: unknown) => void) => () => void;

function stream<T>(
  ctx: RouteContext,
  spec: StreamSpec<T>,
  sourceId: string,
  heartbeatMs: number,
  extra?: Extra,
): Response {
  const header = ctx.request.headers.get("last-event-id") ?? ctx.url.searchParams.get("last_event_id");
  const lastId = header !== null && /^\d+$/.test(header) ? Number(header) : undefined;
  let cleanup = () => {};
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      // Items can arrive out of seq order when several nodes emit for one source at once (a lower
      // seq may commit later). Each item is sent once; its `id:` is the highest seq sent so far, so
      // a resume with Last-Event-ID never repeats what this stream already sent.
      const floor = lastId ?? -1;
      let high = floor;
      const sentSeqs = new Set<number>();
      let ready = false;
      const buffered: T[] = [];
      const write = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          cleanup();
        }
      };
      const send = (item: T) => {
        const seq = spec.seq(item);
        if (seq <= floor || sentSeqs.has(seq)) return;
        sentSeqs.add(seq);
        if (sentSeqs.size > 8192) for (const old of sentSeqs) if (old < high - 4096) sentSeqs.delete(old);
        high = Math.max(high, seq);
        write(`id: ${high}\nevent: ${spec.event}\ndata: ${JSON.stringify(spec.json(item))}\n\n`);
      };
      // Subscribe before reading the backlog so nothing falls in between; buffer until then.
      const unsubscribe = spec.live(ctx.hookline, sourceId, (item) => {
        if (ready) send(item);
        else buffered.push(item);
      });
      const unsubscribeExtra = extra?.(ctx.hookline, sourceId, (event, data) =>
        write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`),
      );
      const heartbeat = setInterval(() => write(": heartbeat\n\n"), heartbeatMs);
      heartbeat.unref?.();
      cleanup = () => {
        clearInterval(heartbeat);
        unsubscribe();
        unsubscribeExtra?.();
      };
      ctx.request.signal?.addEventListener("abort", () => {
        cleanup();
        try {
          controller.close();
        } catch {
          // already closed
        }
      });
      write(": connected\n\n");
      if (lastId !== undefined) for (const item of await spec.backlog(ctx, sourceId, lastId)) send(item);
      ready = true;
      for (const item of buffered.sort((a, b) => spec.seq(a) - spec.seq(b))) send(item);
    },
    cancel() {
      cleanup();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      connection: "keep-alive",
      "x-accel-buffering": "no",
    },
  });
}

/** The emits stream of an emitter whose events `read` pages (a source's or a workflow's). */
const emitsOf = (read: "sources" | "workflows"): StreamSpec<StoredEvent> => ({
  async backlog(ctx, sourceId, lastId) {
    // Pages are newest first: walk back to lastId, then reverse.
    const out: StoredEvent[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await ctx.hookline[read].events(ctx.workspaceId, sourceId, {
        limit: 100,
        ...(before ? { before } : {}),
      });
      const newer = page.items.filter((e) => e.seq > lastId);
      out.push(...newer);
      if (newer.length < page.items.length || !page.nextCursor) break;
      before = page.nextCursor;
    }
    return out.reverse();
  },
  live(hookline, sourceId, push) {
    const handler = (e: HooklineEvents["emit"]) => {
      if (e.sourceId === sourceId) push(e.event);
    };
    hookline.events.on("emit", handler);
    return () => hookline.events.off("emit", handler);
  },
  seq: (e) => e.seq,
  event: "emit",
  json: (e) => eventSummary(e, true),
});
const emits = emitsOf("sources");
const workflowEmits = emitsOf("workflows");

/**
 * A workflow's `$.send.sse` messages (`event: sse`) and its executions' status changes on this
 * node (`event: execution`), live only.
 */
const workflowSse: Extra = (hookline, workflowId, push) => {
  const onSse = (e: HooklineEvents["sse"]) => {
    if (e.workflowId !== workflowId) return;
    push("sse", { execution_id: e.executionId, step: e.step, ts: e.ts, payload: e.payload });
  };
  const onExecution = (e: HooklineEvents["execution"]) => {
    if (e.workflowId === workflowId) push("execution", { execution_id: e.executionId, status: e.status });
  };
  hookline.events.on("sse", onSse);
  hookline.events.on("execution", onExecution);
  return () => {
    hookline.events.off("sse", onSse);
    hookline.events.off("execution", onExecution);
  };
};

type Line = HooklineEvents["log"]["lines"][number];

const logs: StreamSpec<Line> = {
  async backlog(ctx, sourceId, lastId) {
    const out: Line[] = [];
    let after = String(lastId);
    for (;;) {
      const page = await ctx.hookline.sources.logs(ctx.workspaceId, sourceId, { limit: 100, after });
      out.push(...page.items);
      if (!page.nextCursor || page.items.length === 0) break;
      after = page.nextCursor;
    }
    return out;
  },
  live(hookline, sourceId, push) {
    const handler = (e: HooklineEvents["log"]) => {
      if (e.sourceId === sourceId) for (const line of e.lines) push(line);
    };
    hookline.events.on("log", handler);
    return () => hookline.events.off("log", handler);
  },
  seq: (l) => l.seq,
  event: "log",
  json: logJson,
};

/** Builds the stream routes with a heartbeat interval. @internal */
export function createStreamRoutes(heartbeatMs: number) {
  return [
    defineRoute({
      method: "GET",
      path: "/v1/sources/{id}/sse",
      tag: "Streams",
      summary: "Server-sent events of the source's emits (`id:` lines; resume with Last-Event-ID)",
      params: Type.Object({ last_event_id: Type.Optional(Type.String()) }),
      produces: "text/event-stream",
      async handler(ctx) {
        const source = await ctx.hookline.sources.get(ctx.workspaceId, ctx.path.id as string);
        return stream(ctx, emits, source.id, heartbeatMs);
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/workflows/{id}/sse",
      tag: "Streams",
      summary:
        "Server-sent events of the workflow: its emits (`event: emit`, `id:` lines, resumable) and its $.send.sse messages (`event: sse`, live only)",
      params: Type.Object({ last_event_id: Type.Optional(Type.String()) }),
      produces: "text/event-stream",
      async handler(ctx) {
        const wf = await ctx.hookline.workflows.get(ctx.workspaceId, ctx.path.id as string);
        return stream(ctx, workflowEmits, wf.id, heartbeatMs, workflowSse);
      },
    }),
    defineRoute({
      method: "GET",
      path: "/v1/sources/{id}/logs/sse",
      tag: "Streams",
      summary: "Server-sent events of the source's log lines (`id:` lines; resume with Last-Event-ID)",
      params: Type.Object({ last_event_id: Type.Optional(Type.String()) }),
      produces: "text/event-stream",
      async handler(ctx) {
        const source = await ctx.hookline.sources.get(ctx.workspaceId, ctx.path.id as string);
        return stream(ctx, logs, source.id, heartbeatMs);
      },
    }),
  ];
}

/** The stream routes with the default 15 s heartbeat (what the OpenAPI document lists). */
export const streamRoutes = createStreamRoutes(15_000);
