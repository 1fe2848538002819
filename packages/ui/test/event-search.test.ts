// The events search's query building (app/event-search.ts), checked against the real filter
// engine: what the free text becomes matches the events a person would expect, and nothing else.
import { createHookline } from "@hookline/engine";
import { describe, expect, it } from "vitest";
import { matchesLocally, NO_SEARCH, searchQuery, textFilter, textPaths } from "../app/event-search.js";
import type { EventSummary } from "../app/types.js";

const summary = (event: unknown, text: string | null = null, at = 1_767_225_600_000): EventSummary => ({
  id: "evt_1",
  indexed_at_ms: at,
  event,
  metadata: { emit_id: "evt_1", emitter_id: "dc_1", name: "default", id: null, summary: text, ts: at },
});

describe("the events search's query", () => {
  it("free text searches the summary, the event id and every text path seen, arrays by index", () => {
    const paths = new Set<string>();
    textPaths({ a: "x", n: 1, deep: { b: "y", "dot.ted": "z" }, list: ["p", { c: "q" }] }, "event", paths);
    expect([...paths]).toEqual(["event.a", "event.deep.b", "event.list.0", "event.list.1.c"]);
    const f = textFilter("ada", [summary({ who: "ada" }), summary({ who: "bob", tags: ["x"] })]);
    expect(f).toEqual({
      $or: [
        { "metadata.summary": { $contains: "ada" } },
        { "metadata.id": { $contains: "ada" } },
        { "event.who": { $contains: "ada" } },
        { "event.tags.0": { $contains: "ada" } },
      ],
    });
  });

  it("stays under the API's 64 conditions however wide the events are", () => {
    const wide = Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`k${i}`, "v"]));
    const f = textFilter("v", [summary(wide)]) as { $or: unknown[] };
    expect(f.$or.length).toBeLessThanOrEqual(42);
  });

  it("sends the advanced filter as typed (so the API names a problem), combined with $and when valid", () => {
    expect(searchQuery({ ...NO_SEARCH, filter: '{"event.n": 1}' }, [])).toEqual({ filter: '{"event.n": 1}' });
    expect(searchQuery({ ...NO_SEARCH, filter: "{oops" }, [])).toEqual({ filter: "{oops" });
    expect(searchQuery({ ...NO_SEARCH, text: "a", filter: "{oops" }, [])).toEqual({ filter: "{oops" });
    const both = JSON.parse(
      searchQuery({ ...NO_SEARCH, text: "a", filter: '{"event.n": 1}' }, []).filter ?? "",
    );
    expect(both.$and[1]).toEqual({ "event.n": 1 });
    const window = searchQuery({ ...NO_SEARCH, since: "2026-01-31T10:00", until: "" }, []);
    expect(window).toEqual({ since: Math.floor(new Date("2026-01-31T10:00").getTime() / 1000) });
  });

  it("the free text's filter finds, through the engine, exactly the events containing the text", async () => {
    const hookline = createHookline({ secretsKey: "ui-search" });
    const ws = await hookline.workspaces.create({ name: "w" });
    const source = await hookline.sources.deploy(ws.id, {
      name: "emitter",
      code: {
        code: `export default defineComponent({ name: "E", version: "1.0.0",
          async run(event) { this.$emit(event, { summary: "order " + event.n }) } })`,
      },
    });
    await hookline.sources.run(ws.id, source.id, { n: 1, customer: { name: "Ada Lovelace" } });
    await hookline.sources.run(ws.id, source.id, {
      n: 2,
      customer: { name: "Grace Hopper" },
      note: "for Ada",
    });
    await hookline.sources.run(ws.id, source.id, { n: 3, customer: { name: "Linus" } });
    const known = (await hookline.sources.events(ws.id, source.id, { limit: 10 })).items.map((e) =>
      summary(JSON.parse(JSON.stringify(e.body))),
    );
    const search = async (text: string) => {
      const { filter } = searchQuery({ ...NO_SEARCH, text }, known);
      const page = await hookline.sources.events(ws.id, source.id, {
        limit: 10,
        filter: JSON.parse(filter ?? "{}"),
      });
      return page.items.map((e) => (e.body as { n: number }).n).sort();
    };
    expect(await search("Ada")).toEqual([1, 2]);
    expect(await search("order 3")).toEqual([3]);
    expect(await search("nobody")).toEqual([]);
    await hookline.close();
  });

  it("the browser fallback matches text anywhere and the window on the stored time", () => {
    const e = summary({ word: "Beta" }, null, Date.UTC(2026, 0, 31, 12));
    expect(matchesLocally(e, { ...NO_SEARCH, text: "beta" })).toBe(true);
    expect(matchesLocally(e, { ...NO_SEARCH, text: "gamma" })).toBe(false);
    expect(matchesLocally(e, { ...NO_SEARCH, since: "2099-01-01T00:00" })).toBe(false);
    expect(matchesLocally(e, { ...NO_SEARCH, until: "2099-01-01T00:00" })).toBe(true);
  });
});
