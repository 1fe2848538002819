/** Conformance: the scan budget of event pages (`scan`, `scanned`, `budgetReached`). */
import { parseEventFilter } from "@hookline/core";
import { describe, expect } from "vitest";
import type { EventInput, ListEventsOptions } from "../types/index.js";
import type { SuiteContext } from "./context.js";

/** Registers the scan budget tests. */
export function scanBudgetSuite(t: SuiteContext): void {
  describe("event scan budget", () => {
    const seed = async () => {
      const ws = await t.workspace();
      const dc = await t.component(ws);
      const input: EventInput[] = Array.from({ length: 250 }, (_, n) => ({
        channel: n % 2 ? "odd" : "even",
        ts: n,
        body: { n },
      }));
      const stored = await t.emit(ws, dc.id, input, 1_000);
      const list = (options: ListEventsOptions) => t.store.events.list(ws, dc.id, options);
      const seqOf = (n: number) => String(stored[n]!.seq);
      return { list, seqOf };
    };
    const ns = (items: { body: unknown }[]) => items.map((e) => (e.body as { n: number }).n);

    t.test("a page stops on its budget, empty but with a cursor that continues the scan", async () => {
      const { list, seqOf } = await seed();
      const filter = parseEventFilter({ "event.n": { $lt: 5 } });
      const first = await list({ filter, scan: 100, limit: 10 });
      expect(first).toEqual({ items: [], scanned: 100, budgetReached: true, nextCursor: seqOf(150) });
      const second = await list({ filter, scan: 100, limit: 10, before: first.nextCursor! });
      expect(second).toEqual({ items: [], scanned: 100, budgetReached: true, nextCursor: seqOf(50) });
      const third = await list({ filter, scan: 100, limit: 10, before: second.nextCursor! });
      expect(ns(third.items)).toEqual([4, 3, 2, 1, 0]);
      expect(third).toMatchObject({ scanned: 50, budgetReached: false });
      expect(third.nextCursor).toBeUndefined();
      // The whole window in one page with a budget as large as the source.
      const whole = await list({ filter, scan: 1_000, limit: 10 });
      expect(ns(whole.items)).toEqual([4, 3, 2, 1, 0]);
      expect(whole).toMatchObject({ scanned: 250, budgetReached: false });
    });

    t.test("a page that fills counts the events examined up to its last item", async () => {
      const { list, seqOf } = await seed();
      const odd = await list({
        channel: "odd",
        filter: parseEventFilter({ "event.n": { $gte: 0 } }),
        limit: 3,
      });
      expect(ns(odd.items)).toEqual([249, 247, 245]);
      expect(odd).toMatchObject({ scanned: 5, budgetReached: false, nextCursor: seqOf(245) });
      const window = await list({ since: 1_000, until: 1_001, limit: 100, scan: 100, order: "asc" });
      expect(window.items).toHaveLength(100);
      // Full on the budget's last event: the budget is spent too, and the cursor is the same.
      expect(window).toMatchObject({ scanned: 100, budgetReached: true, nextCursor: seqOf(99) });
    });

    t.test(
      "oldest first, a budget below the page size is raised to it, no conditions never stop",
      async () => {
        const { list, seqOf } = await seed();
        const late = parseEventFilter({ "event.n": { $gte: 240 } });
        const first = await list({ filter: late, order: "asc", scan: 1 });
        expect(first).toEqual({ items: [], scanned: 100, budgetReached: true, nextCursor: seqOf(99) });
        const rest = await list({ filter: late, order: "asc", scan: 200, after: first.nextCursor! });
        expect(ns(rest.items)).toEqual([240, 241, 242, 243, 244, 245, 246, 247, 248, 249]);
        expect(rest).toMatchObject({ scanned: 150, budgetReached: false });
        const plain = await list({ limit: 100, scan: 100 });
        expect(plain).toMatchObject({ scanned: 100, budgetReached: false, nextCursor: seqOf(150) });
      },
    );
  });
}
