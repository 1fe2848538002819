/** Conformance: dedupe state (written by the emit commit). */
import { describe, expect } from "vitest";
import { events, type SuiteContext } from "./context.js";

/** Registers the dedupe tests. */
export function dedupeSuite(t: SuiteContext): void {
  describe("dedupe", () => {
    t.test("get reads what the last commit wrote; a commit without state leaves it", async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const commit = (dedupeState?: unknown) =>
        t.store.emits.commit({
          workspaceId: ws,
          componentId: dc.id,
          events: events(1, 1),
          ...(dedupeState === undefined ? {} : { dedupeState }),
        });
      expect(await t.store.dedupe.get(dc.id)).toBeUndefined();
      await commit({ ids: ["a", "b"] });
      expect(await t.store.dedupe.get(dc.id)).toEqual({ ids: ["a", "b"] });
      await commit({ ids: ["c"] });
      expect(await t.store.dedupe.get(dc.id)).toEqual({ ids: ["c"] });
      await commit();
      expect(await t.store.dedupe.get(dc.id)).toEqual({ ids: ["c"] });
      // A commit of no events still writes the state (every event of the run was a duplicate).
      await t.store.emits.commit({
        workspaceId: ws,
        componentId: dc.id,
        events: [],
        dedupeState: { ids: [] },
      });
      expect(await t.store.dedupe.get(dc.id)).toEqual({ ids: [] });
    });
  });
}
