/** Conformance: timer schedules (their ticks are claimed from the queue, see queue.ts). */
import { describe, expect } from "vitest";
import { nextWindow, type SuiteContext, unique } from "./context.js";

/** Registers the timer schedule tests. */
export function timersSuite(t: SuiteContext): void {
  describe("timers", () => {
    t.test("upsert, get and delete", async () => {
      const { timers } = t.store;
      const ws = await t.workspace();
      const id = unique("dc");
      const at = nextWindow();
      const timer = await timers.upsert({ componentId: id, workspaceId: ws, nextAt: at });
      expect(timer).toMatchObject({ componentId: id, workspaceId: ws, nextAt: at });
      expect(await timers.get(ws, id)).toMatchObject({ nextAt: at });
      await timers.upsert({ componentId: id, workspaceId: ws, nextAt: at + 5 });
      expect((await timers.get(ws, id))?.nextAt).toBe(at + 5);
      expect(await timers.delete(id)).toBe(true);
      expect(await timers.get(ws, id)).toBeUndefined();
      expect(await timers.delete(id)).toBe(false);
    });
  });
}
