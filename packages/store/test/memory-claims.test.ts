import { DEFAULT_CHANNEL } from "@hookline/core";
import { describe, expect, it } from "vitest";
import { createMemoryStore } from "../src/index.js";

/** One workspace, one webhook subscribed to `dc_1`, and the store. */
async function setup() {
  const store = createMemoryStore({ now: () => 1_000 });
  const ws = await store.workspaces.create({ name: "claims" });
  const webhook = await store.webhooks.create({
    workspaceId: ws.id,
    url: "https://example.com/hook",
    active: true,
    secrets: [{ value: "enc:secret", createdAt: 0 }],
  });
  await store.subscriptions.create({ workspaceId: ws.id, emitterId: "dc_1", listenerId: webhook.id });
  return { store, ws };
}

describe("memory store claims", () => {
  it("hand out deep copies: changing a claimed row changes nothing stored", async () => {
    const { store, ws } = await setup();
    await store.emits.commit({
      workspaceId: ws.id,
      componentId: "dc_1",
      events: [
        { channel: DEFAULT_CHANNEL, ts: 1, body: { nested: { list: [1, { deep: true }] }, text: "a" } },
      ],
    });
    const [claimed] = await store.queue.deliveries.claim({
      owner: "w1",
      now: 2_000,
      leaseMs: 60_000,
      limit: 1,
    });
    if (!claimed) throw new Error("nothing claimed");
    (claimed.event.body as { nested: { list: unknown[] } }).nested.list.push("mutated");
    claimed.webhook.secrets.push({ value: "enc:other", createdAt: 1 });
    claimed.webhook.url = "https://evil.example/";
    claimed.state = "succeeded";

    expect(await store.queue.deliveries.complete(claimed.id, "w1", { state: "pending", at: 2_000 })).toBe(
      true,
    );
    const [again] = await store.queue.deliveries.claim({
      owner: "w2",
      now: 3_000,
      leaseMs: 60_000,
      limit: 1,
    });
    expect(again?.event.body).toEqual({ nested: { list: [1, { deep: true }] }, text: "a" });
    expect(again?.webhook.secrets).toEqual([{ value: "enc:secret", createdAt: 0 }]);
    expect(again?.webhook.url).toBe("https://example.com/hook");
    expect(again?.attempts).toBe(2);
  });

  it("copy bodies JSON cannot represent as structuredClone does (dates, maps, cycles, deep nesting)", async () => {
    const { store, ws } = await setup();
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const holey: number[] = [];
    holey[0] = 1;
    holey[2] = 3;
    let deep: unknown = "bottom";
    for (let i = 0; i < 100; i++) deep = { next: deep };
    const bodies = [
      { at: new Date(5), tags: new Map([["a", 1]]), bytes: new Uint8Array([1, 2]) },
      cyclic,
      deep,
      holey,
    ];
    await store.emits.commit({
      workspaceId: ws.id,
      componentId: "dc_1",
      events: bodies.map((body) => ({ channel: DEFAULT_CHANNEL, ts: 1, body })),
    });
    const claimed = await store.queue.deliveries.claim({
      owner: "w1",
      now: 2_000,
      leaseMs: 60_000,
      limit: 10,
    });
    expect(claimed).toHaveLength(4);
    const byBody = claimed.map((row) => row.event.body) as [
      { at: Date; tags: Map<string, number>; bytes: Uint8Array },
      Record<string, unknown>,
      unknown,
      unknown[],
    ];
    expect(byBody[0].at).toBeInstanceOf(Date);
    expect(byBody[0].at.getTime()).toBe(5);
    expect(byBody[0].tags.get("a")).toBe(1);
    expect([...byBody[0].bytes]).toEqual([1, 2]);
    expect(byBody[1].self).toBe(byBody[1]);
    expect(byBody[2]).toEqual(deep);
    expect(1 in byBody[3]).toBe(false);
    expect(byBody[3]).toHaveLength(3);
  });
});
