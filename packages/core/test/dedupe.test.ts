import { applyDedupe, type DedupeState, HooklineError, orderEmits, UNIQUE_CACHE_SIZE } from "@hookline/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const emits = (...ids: (string | number)[]) => ids.map((id) => ({ event: { id }, meta: { id } }));
const ids = (list: { meta: { id?: unknown } }[]) => list.map((e) => e.meta.id);

describe("unique", () => {
  it("an event whose id is not cached is emitted and its id cached", () => {
    const first = applyDedupe("unique", {}, emits("a", "b"));
    expect(ids(first.emitted)).toEqual(["a", "b"]);
    expect(first.state).toEqual({ ids: ["a", "b"] });
    const second = applyDedupe("unique", first.state, emits("b", "c", "c"));
    expect(ids(second.emitted)).toEqual(["c"]);
    expect(second.state.ids).toEqual(["a", "b", "c"]);
  });

  it("keeps 100 ids and purges first in, first out at the 101st", () => {
    const hundred = applyDedupe("unique", {}, emits(...Array.from({ length: 100 }, (_, i) => i)));
    expect(hundred.state.ids).toHaveLength(UNIQUE_CACHE_SIZE);
    const purged = applyDedupe("unique", hundred.state, emits(100));
    expect(purged.state.ids).toHaveLength(100);
    expect(purged.state.ids?.[0]).toBe("1"); // id 0 was purged first
    expect(ids(applyDedupe("unique", purged.state, emits(0)).emitted)).toEqual([0]); // so 0 is new again
    expect(ids(applyDedupe("unique", purged.state, emits(1)).emitted)).toEqual([]); // 1 is still cached
  });

  it("property: never emits an id twice within the last 100 distinct ids", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: 0, max: 150 }), { maxLength: 30 }), { maxLength: 20 }),
        (batches) => {
          let state: DedupeState = {};
          const window: string[] = [];
          for (const batch of batches) {
            const result = applyDedupe("unique", state, emits(...batch));
            for (const e of result.emitted) {
              const key = String(e.meta.id);
              expect(window.includes(key)).toBe(false);
              window.push(key);
              if (window.length > 100) window.shift();
            }
            state = result.state;
            expect(state.ids).toEqual(window);
          }
        },
      ),
    );
  });
});

describe("greatest", () => {
  it("only events with a larger id are emitted; the cache holds the new largest", () => {
    const first = applyDedupe("greatest", {}, emits(5, 3, 7));
    expect(ids(first.emitted)).toEqual([5, 7]);
    expect(first.state).toEqual({ greatest: 7 });
    const second = applyDedupe("greatest", first.state, emits(7, "8", 6));
    expect(ids(second.emitted)).toEqual(["8"]);
    expect(second.state).toEqual({ greatest: 8 });
  });

  it("a non-numeric id is an error, not a silent drop", () => {
    const attempt = () => applyDedupe("greatest", { greatest: 1 }, emits(2, "abc"));
    expect(attempt).toThrow(HooklineError);
    expect(attempt).toThrow(/numeric ids.*#2.*"abc"/);
    try {
      attempt();
    } catch (error) {
      expect((error as HooklineError).code).toBe("dedupe_non_numeric_id");
    }
  });

  it("property: emitted ids strictly increase and the state is the maximum seen", () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.integer({ min: -1000, max: 1000 }), { maxLength: 20 }), { maxLength: 10 }),
        (batches) => {
          let state: DedupeState = {};
          let last = Number.NEGATIVE_INFINITY;
          let max = Number.NEGATIVE_INFINITY;
          for (const batch of batches) {
            const result = applyDedupe("greatest", state, emits(...batch));
            for (const e of result.emitted) {
              expect(e.meta.id as number).toBeGreaterThan(last);
              last = e.meta.id as number;
            }
            for (const id of batch) max = Math.max(max, id);
            state = result.state;
            if (Number.isFinite(max)) expect(state.greatest).toBe(max);
          }
        },
      ),
    );
  });
});

describe("last", () => {
  it("only events after the matching id are emitted", () => {
    const result = applyDedupe("last", { last: "b" }, emits("a", "b", "c", "d"));
    expect(ids(result.emitted)).toEqual(["c", "d"]);
    expect(result.state).toEqual({ last: "d" });
  });

  it("if no id matches, all events are emitted", () => {
    const result = applyDedupe("last", { last: "zzz" }, emits("a", "b"));
    expect(ids(result.emitted)).toEqual(["a", "b"]);
    expect(result.state).toEqual({ last: "b" });
  });

  it("the cached last event is the one with the newest timestamp", () => {
    const ordered = orderEmits([
      { event: 2, meta: { id: "new", ts: 2000 } },
      { event: 1, meta: { id: "old", ts: 1000 } },
    ]);
    expect(applyDedupe("last", {}, ordered).state).toEqual({ last: "new" });
  });

  it("when the match is the newest event nothing is emitted and the cache stays", () => {
    expect(applyDedupe("last", { last: 2 }, emits(1, 2))).toEqual({ emitted: [], state: { last: 2 } });
  });

  it("property: emits exactly the suffix after the last cached id, or everything", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 20 }),
        fc.integer({ min: 0, max: 20 }),
        (batch, cached) => {
          const result = applyDedupe("last", { last: cached }, emits(...batch));
          const index = batch.indexOf(cached);
          expect(ids(result.emitted)).toEqual(batch.slice(index + 1));
          if (result.emitted.length > 0) expect(result.state.last).toBe(batch[batch.length - 1]);
          else expect(result.state.last).toBe(cached);
        },
      ),
    );
  });
});

describe("every strategy", () => {
  it.each(["unique", "greatest", "last"] as const)(
    "%s: a missing id is an error with a clear message",
    (strategy) => {
      const attempt = () =>
        applyDedupe(strategy, {}, [
          { event: 1, meta: { id: 1 } },
          { event: 2, meta: {} },
        ]);
      expect(attempt).toThrow(
        `This source uses dedupe "${strategy}", but event #2 was emitted without an id`,
      );
      try {
        attempt();
      } catch (error) {
        expect((error as HooklineError).code).toBe("dedupe_missing_id");
        expect((error as HooklineError).status).toBe(422);
      }
    },
  );

  it("without a strategy everything passes, ids or not", () => {
    const list = [
      { event: 1, meta: {} },
      { event: 1, meta: {} },
    ];
    expect(applyDedupe(undefined, undefined, list).emitted).toEqual(list);
  });

  it("does not change its inputs", () => {
    const state = { ids: ["a"] };
    const list = emits("b");
    applyDedupe("unique", state, list);
    expect(state).toEqual({ ids: ["a"] });
  });
});

describe("orderEmits", () => {
  it("orders events with ts oldest to newest; events without ts keep their place", () => {
    const ordered = orderEmits([
      { event: "c", meta: { ts: 3 } },
      { event: "x", meta: {} },
      { event: "a", meta: { ts: 1 } },
      { event: "b", meta: { ts: 2 } },
    ]);
    expect(ordered.map((e) => e.event)).toEqual(["a", "x", "b", "c"]);
  });

  it("is stable for equal timestamps", () => {
    const ordered = orderEmits([
      { event: 1, meta: { ts: 5 } },
      { event: 2, meta: { ts: 5 } },
    ]);
    expect(ordered.map((e) => e.event)).toEqual([1, 2]);
  });
});
