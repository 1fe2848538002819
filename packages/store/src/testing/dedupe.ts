/** Conformance: dedupe, decided by the emit commit against the state the store keeps. */
import type { DedupeStrategy } from "@hookline/core";
import { describe, expect } from "vitest";
import type { EventInput, Store } from "../types/index.js";
import type { SuiteContext } from "./context.js";

/** Events with these ids (oldest first), their bodies naming them. */
export const withIds = (ids: readonly (string | number)[], ts = 1): EventInput[] =>
  ids.map((id, i) => ({ channel: "default", ts: ts + i, eventId: String(id), body: { id } }));

/**
 * The ids every commit of a race sends (oldest first). Whichever commit is decided first keeps them
 * all, and every later one none, under each strategy: `unique` (seen), `greatest` (none larger),
 * `last` (the cached last id is the last of them, so nothing comes after it).
 */
export const RACED_IDS = Array.from({ length: 8 }, (_, i) => String(i + 1));

/**
 * Commits `rounds` emits of the same ids to one emitter at once through `stores` (in turn), and
 * returns the ids of the events stored, in `seq` order.
 */
export async function raceSameIds(
  stores: readonly Store[],
  ws: string,
  emitterId: string,
  strategy: DedupeStrategy,
  rounds: number,
): Promise<string[]> {
  await Promise.all(
    Array.from({ length: rounds }, (_, i) =>
      (stores[i % stores.length] as Store).emits.commit({
        workspaceId: ws,
        componentId: emitterId,
        dedupe: strategy,
        events: withIds(RACED_IDS),
      }),
    ),
  );
  const page = await (stores[0] as Store).events.list(ws, emitterId, { limit: 100, order: "asc" });
  return page.items.map((event) => event.eventId as string);
}

/** Registers the dedupe tests. */
export function dedupeSuite(t: SuiteContext): void {
  describe("dedupe", () => {
    const commit = (ws: string, id: string, strategy: DedupeStrategy | undefined, ids: (string | number)[]) =>
      t.store.emits.commit({
        workspaceId: ws,
        componentId: id,
        events: withIds(ids),
        ...(strategy ? { dedupe: strategy } : {}),
      });
    const idsOf = (events: { eventId?: string }[]) => events.map((e) => e.eventId);

    t.test("unique: an id among the last 100 is dropped; the state is written with the events", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      expect(await t.store.dedupe.get(dc.id)).toBeUndefined();
      expect(idsOf(await commit(ws, dc.id, "unique", ["a", "b", "a"]))).toEqual(["a", "b"]);
      expect(await t.store.dedupe.get(dc.id)).toEqual({ ids: ["a", "b"] });
      expect(idsOf(await commit(ws, dc.id, "unique", ["b", "c"]))).toEqual(["c"]);
      // A commit without a strategy keeps every event and leaves the state as it is.
      expect(idsOf(await commit(ws, dc.id, undefined, ["a"]))).toEqual(["a"]);
      expect(await t.store.dedupe.get(dc.id)).toEqual({ ids: ["a", "b", "c"] });
      const listed = await t.store.events.list(ws, dc.id, { order: "asc" });
      expect(idsOf(listed.items)).toEqual(["a", "b", "c", "a"]);
    });

    t.test("greatest and last keep what core's applyDedupe keeps", async () => {
      const ws = await t.workspace();
      const greatest = await t.component(ws);
      expect(idsOf(await commit(ws, greatest.id, "greatest", [3, 1, 5]))).toEqual(["3", "5"]);
      expect(idsOf(await commit(ws, greatest.id, "greatest", [4, 6]))).toEqual(["6"]);
      expect(await t.store.dedupe.get(greatest.id)).toEqual({ greatest: 6 });
      const last = await t.component(ws);
      expect(idsOf(await commit(ws, last.id, "last", ["x", "y"]))).toEqual(["x", "y"]);
      expect(idsOf(await commit(ws, last.id, "last", ["x", "y", "z"]))).toEqual(["z"]);
      expect(await t.store.dedupe.get(last.id)).toEqual({ last: "z" });
    });

    t.test("an event without an id under a strategy writes nothing of the commit", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const failed = t.store.emits.commit({
        workspaceId: ws,
        componentId: dc.id,
        dedupe: "unique",
        events: [...withIds(["a"]), { channel: "default", ts: 9, body: null }],
      });
      await expect(failed).rejects.toMatchObject({ code: "dedupe_missing_id" });
      const numeric = commit(ws, dc.id, "greatest", ["nope"]);
      await expect(numeric).rejects.toMatchObject({ code: "dedupe_non_numeric_id" });
      expect((await t.store.events.list(ws, dc.id)).items).toEqual([]);
      expect(await t.store.dedupe.get(dc.id)).toBeUndefined();
    });

    for (const strategy of ["unique", "greatest", "last"] as const) {
      t.test(`${strategy}: concurrent commits of the same ids keep each id once`, async () => {
        const ws = await t.workspace();
        const dc = await t.component(ws);
        expect(await raceSameIds([t.store], ws, dc.id, strategy, 12)).toEqual(RACED_IDS);
      });
    }
  });
}
