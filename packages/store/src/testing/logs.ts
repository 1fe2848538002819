/** Conformance: component logs. */
import { describe, expect } from "vitest";
import { expectStoreError, type SuiteContext, unique } from "./context.js";

const lines = (count: number) =>
  Array.from({ length: count }, (_, i) => ({ level: i % 2 ? "error" : "info", message: `line ${i}`, ts: i }));

/** Registers the log tests. */
export function logsSuite(t: SuiteContext): void {
  describe("logs", () => {
    t.test("append and list oldest first with a cursor", async () => {
      const { logs } = t.store;
      const ws = await t.workspace();
      const dc = unique("dc");
      const stored = await logs.append(ws, dc, lines(7));
      expect(stored).toHaveLength(7);
      expect(stored[0]).toMatchObject({
        workspaceId: ws,
        componentId: dc,
        level: "info",
        message: "line 0",
        ts: 0,
      });
      const first = await logs.list(ws, dc, { limit: 5 });
      expect(first.items.map((line) => line.message)).toEqual([
        "line 0",
        "line 1",
        "line 2",
        "line 3",
        "line 4",
      ]);
      expect(first.nextCursor).toBeDefined();
      const second = await logs.list(ws, dc, { limit: 5, after: first.nextCursor! });
      expect(second.items.map((line) => line.message)).toEqual(["line 5", "line 6"]);
      expect(second.nextCursor).toBeUndefined();
      await logs.append(ws, dc, [{ level: "info", message: "late", ts: 9 }]);
      const tail = await logs.list(ws, dc, { after: String(stored[6]!.seq) });
      expect(tail.items.map((line) => line.message)).toEqual(["late"]);
    });

    t.test("list refuses a malformed cursor as invalid, naming it", async () => {
      const ws = await t.workspace();
      for (const bad of ["abc", "1.5", "-3", "0x10"]) {
        await expectStoreError(t.store.logs.list(ws, unique("dc"), { after: bad }), "invalid", "after");
      }
    });

    t.test("trim by count keeps the newest lines", async () => {
      const ws = await t.workspace();
      const dc = unique("dc");
      await t.store.logs.append(ws, dc, lines(10));
      expect(await t.store.logs.trim(dc, { count: 3 })).toBe(7);
      const left = await t.store.logs.list(ws, dc, { limit: 100 });
      expect(left.items.map((line) => line.message)).toEqual(["line 7", "line 8", "line 9"]);
    });

    t.test("trim by bytes keeps the newest lines within the budget", async () => {
      const ws = await t.workspace();
      const dc = unique("dc");
      await t.store.logs.append(ws, dc, lines(10)); // "line N": 6 bytes each
      expect(await t.store.logs.trim(dc, { bytes: 20 })).toBe(7);
      const left = await t.store.logs.list(ws, dc, { limit: 100 });
      expect(left.items.map((line) => line.message)).toEqual(["line 7", "line 8", "line 9"]);
      expect(await t.store.logs.trim(dc, { bytes: 0 })).toBe(2);
    });
  });
}
