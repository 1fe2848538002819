// The store stage of a run (logs, emits) runs after the source's queue has moved on (runs.ts):
// concurrent requests to one source all get their events stored, dedupe (the store's, decided in
// the emit commit) sees them in the order the store commits them, which is invocation order here,
// and a delete waits for the store work of the runs before it.
import { createMemoryStore, type Store } from "@hookline/store";
import { afterEach, describe, expect, it } from "vitest";
import { createHookline, type Hookline } from "../src/index.js";

let engine: Hookline | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

/** A memory store whose emit commits take a few milliseconds, as a database's do. */
function slowCommits(store: Store): Store {
  const commit = store.emits.commit.bind(store.emits);
  store.emits.commit = async (input) => {
    await new Promise((r) => setTimeout(r, 5));
    return commit(input);
  };
  return store;
}

async function setup(code: string) {
  const store = slowCommits(createMemoryStore());
  engine = createHookline({ store, worker: false, secretsKey: "store-stage" });
  const ws = (await engine.workspaces.create({ name: "acme" })).id;
  const source = await engine.sources.deploy(ws, { code: { code } });
  const post = (body: unknown) =>
    (engine as Hookline).ingress(source.endpointId as string, {
      method: "POST",
      path: "/",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
  return { hookline: engine, store, ws, source, post };
}

const ECHO = `export default { name: "Echo", version: "0.1.0", props: { http: "$.interface.http" },
  run(e) { this.$emit(e.body); } };`;

describe("the store stage of a run", () => {
  it("stores every event of concurrent requests to one source, each answered once stored", async () => {
    const { hookline, ws, source, post } = await setup(ECHO);
    const replies = await Promise.all(Array.from({ length: 20 }, (_, n) => post({ n })));
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    const events = await hookline.sources.events(ws, source.id, { limit: 100 });
    expect(events.items.map((e) => (e.body as { n: number }).n).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, n) => n),
    );
  });

  it("a source with a dedupe strategy keeps invocation order (no queue of its own)", async () => {
    const { hookline, ws, source, post } = await setup(`export default { name: "Greatest", version: "0.1.0",
      dedupe: "greatest", props: { http: "$.interface.http" },
      run(e) { this.$emit(e.body, { id: e.body.n }); } };`);
    // Ascending ids, sent at once: "greatest" keeps each only if the previous state was written first.
    await Promise.all(Array.from({ length: 10 }, (_, n) => post({ n: n + 1 })));
    const events = await hookline.sources.events(ws, source.id, { limit: 100 });
    expect(events.items.map((e) => (e.body as { n: number }).n).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
    ]);
  });

  it("deletes a source only after the runs before the delete stored their events", async () => {
    const { hookline, store, ws, source, post } = await setup(ECHO);
    const runs = Array.from({ length: 10 }, (_, n) => post({ n }));
    await new Promise((r) => setTimeout(r, 1)); // the runs are queued or running
    await hookline.sources.delete(ws, source.id);
    await Promise.allSettled(runs);
    expect((await store.events.list(ws, source.id, { limit: 100 })).items).toEqual([]);
  });
});
