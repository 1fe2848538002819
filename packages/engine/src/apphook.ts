/**
 * `$.interface.apphook` sources fed by other sources: a subscription whose listener is a source
 * (`POST /v1/subscriptions?emitter_id=dc_A&listener_id=dc_B`) runs B's `run(event)` with each event
 * A emits on the subscribed channel (the event's body, as a workflow's source trigger gets it).
 *
 * Durability: the events are already stored when the listener runs (the emit pipeline's outbox),
 * and each subscription keeps a cursor (the `seq` of the last event fed, in the store's kv under
 * the subscription's id) that moves only once the listener's run and its own emits are stored. So
 * every event is fed at least once: after a restart, or when the listener's queue was full
 * (`source_busy`), feeding resumes from the cursor. Loops are refused when subscribing (a source
 * cannot listen to itself, nor to a source it feeds, directly or not: `subscription_cycle`).
 */
import { channelName, HooklineError } from "@hookline/core";
import type { DeployedComponent, Subscription } from "@hookline/store";
import type { EngineContext } from "./context.js";
import { toFilter } from "./event-search.js";
import { runSource } from "./runs.js";
import { subscriptionFilterOf } from "./webhooks.js";

/** The kv key of a subscription's cursor. */
const CURSOR = "apphook_cursor";
/** Events read per page while feeding. */
const PAGE = 100;
/** Wait before feeding again after a refused invocation (queue full, store error), ms. */
const RETRY_MS = 1_000;
/**
 * How long an emitter's source listeners, once read, are reused, ms: the emit path does not read
 * the subscriptions for every event; a subscription made on another node is seen within this time.
 */
const LISTENERS_CACHE_MS = 1_000;

/** The source-to-source subscriptions. @internal */
export interface Apphooks {
  /** Subscribes a source with an apphook prop to an emitter (422 `invalid_listener`, `subscription_cycle`). */
  subscribe(
    workspaceId: string,
    input: { emitterId: string; listenerId: string; eventName?: string | null; filter?: unknown },
  ): Promise<Subscription & { created: boolean }>;
  /** A source stored events on this node: feed its source listeners. */
  emitted(workspaceId: string, emitterId: string): void;
  /** Feeds every source listener from its cursor (at start: what a stop left unfed). */
  catchUp(): Promise<void>;
  /** Waits for the feeds in progress and stops retrying. */
  close(): Promise<void>;
}

const hasApphook = (description: { props: Record<string, { type: string }> }) =>
  Object.values(description.props).some((p) => p.type === "$.interface.apphook");

/** Makes the apphook feeding of one engine. @internal */
export function createApphooks(ctx: EngineContext): Apphooks {
  const { store } = ctx;
  /** Per subscription: the feed in progress, and whether another pass was asked meanwhile. */
  const feeds = new Map<string, { running: Promise<void>; again: boolean }>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const known = new Map<string, { at: number; subs: Promise<Subscription[]> }>();
  let closed = false;

  async function listenerOf(workspaceId: string, id: string): Promise<DeployedComponent> {
    const source = await store.deployedComponents.get(workspaceId, id);
    if (!source) throw new HooklineError("not_found", `No listener ${id} in this workspace`);
    return source;
  }

  /** The source ids `from` feeds, directly or not, as paths (for the cycle message). */
  async function loopPath(workspaceId: string, from: string, to: string): Promise<string[] | undefined> {
    const edges = new Map<string, string[]>();
    for (const sub of await store.subscriptions.list(workspaceId)) {
      if (!sub.listenerId.startsWith("dc_")) continue;
      edges.set(sub.emitterId, [...(edges.get(sub.emitterId) ?? []), sub.listenerId]);
    }
    // Does `from` (the new listener) reach `to` (the new emitter)?
    const seen = new Map<string, string | null>([[from, null]]);
    const queue = [from];
    while (queue.length > 0) {
      const at = queue.shift() as string;
      if (at === to) {
        const path = [at];
        for (let p = seen.get(at); p; p = seen.get(p)) path.unshift(p);
        return path;
      }
      for (const next of edges.get(at) ?? [])
        if (!seen.has(next)) {
          seen.set(next, at);
          queue.push(next);
        }
    }
    return undefined;
  }

  async function feedOnce(sub: Subscription): Promise<void> {
    const current = await store.subscriptions.list(sub.workspaceId, { emitterId: sub.emitterId });
    if (!current.some((s) => s.id === sub.id)) return; // deleted meanwhile
    let cursor = Number((await store.kv.get(sub.id, CURSOR)) ?? 0);
    const filter = sub.filter ? toFilter(sub.filter as never) : undefined;
    for (;;) {
      const page = await store.events.list(sub.workspaceId, sub.emitterId, {
        order: "asc",
        after: String(cursor),
        limit: PAGE,
        channel: channelName(sub.eventName),
        ...(filter ? { filter } : {}),
      });
      for (const event of page.items) {
        if (closed) return;
        const listener = await store.deployedComponents.get(sub.workspaceId, sub.listenerId);
        if (!listener) return; // deleted: nothing to feed
        // An inactive listener skips the event, as an inactive source hears no requests.
        if (listener.active) await runSource(ctx, listener, event.body, "apphook");
        cursor = event.seq;
        await store.kv.set(sub.id, CURSOR, cursor);
      }
      if (page.items.length < PAGE) return;
    }
  }

  function feed(sub: Subscription): void {
    if (closed) return;
    const current = feeds.get(sub.id);
    if (current) {
      current.again = true;
      return;
    }
    const entry = { running: Promise.resolve(), again: false };
    entry.running = (async () => {
      do {
        entry.again = false;
        try {
          await feedOnce(sub);
        } catch {
          // Queue full or a store error: the cursor did not move; try again shortly.
          if (closed) break;
          const timer = setTimeout(() => {
            timers.delete(timer);
            feed(sub);
          }, RETRY_MS);
          timer.unref?.();
          timers.add(timer);
          break;
        }
      } while (entry.again && !closed);
      feeds.delete(sub.id);
    })();
  }

  async function listeners(workspaceId: string, emitterId?: string): Promise<Subscription[]> {
    const subs = await store.subscriptions.list(workspaceId, emitterId ? { emitterId } : {});
    return subs.filter((s) => s.listenerId.startsWith("dc_"));
  }

  return {
    async subscribe(workspaceId, input) {
      const emitter = await store.deployedComponents.get(workspaceId, input.emitterId);
      if (!emitter) throw new HooklineError("not_found", `No emitter ${input.emitterId} in this workspace`);
      const listener = await listenerOf(workspaceId, input.listenerId);
      const component = await ctx.mounts.component(workspaceId, listener.savedComponentId);
      if (!hasApphook(component.description))
        throw new HooklineError(
          "invalid_listener",
          `${input.listenerId} has no $.interface.apphook prop: only apphook sources listen to other sources`,
        );
      if (input.emitterId === input.listenerId)
        throw new HooklineError("subscription_cycle", `${input.listenerId} cannot listen to its own events`, {
          path: [input.emitterId, input.listenerId],
        });
      const loop = await loopPath(workspaceId, input.listenerId, input.emitterId);
      if (loop)
        throw new HooklineError(
          "subscription_cycle",
          `${input.listenerId} already feeds ${input.emitterId} (${loop.join(" -> ")}): listening to it would loop`,
          { path: [...loop, input.listenerId] },
        );
      const filter = subscriptionFilterOf(input.filter as never);
      const sub = await store.subscriptions.create({
        workspaceId,
        emitterId: input.emitterId,
        listenerId: input.listenerId,
        eventName: input.eventName ?? null,
        ...(filter ? { filter } : {}),
      });
      known.delete(`${workspaceId}\u0000${input.emitterId}`);
      // A new subscription hears what is emitted from now on: its cursor starts at the newest event.
      if (sub.created) {
        const newest = await store.events.list(workspaceId, input.emitterId, { limit: 1 });
        await store.kv.set(sub.id, CURSOR, newest.items[0]?.seq ?? 0);
      }
      return sub;
    },
    emitted(workspaceId, emitterId) {
      if (closed) return;
      const key = `${workspaceId}\u0000${emitterId}`;
      const now = performance.now();
      let entry = known.get(key);
      if (!entry || now - entry.at > LISTENERS_CACHE_MS) {
        if (known.size > 10_000) known.clear();
        entry = { at: now, subs: listeners(workspaceId, emitterId) };
        known.set(key, entry);
      }
      entry.subs.then(
        (subs) => {
          for (const sub of subs) feed(sub);
        },
        () => undefined,
      );
    },
    async catchUp() {
      for (const ws of await store.workspaces.list()) for (const sub of await listeners(ws.id)) feed(sub);
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await Promise.allSettled([...feeds.values()].map((f) => f.running));
    },
  };
}
