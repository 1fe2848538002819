import { createMemoryStore } from "@hookline/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeClock, createHookline, type HooklineEvents } from "../src/index.js";

const clock = createFakeClock(Date.UTC(2026, 0, 1, 0, 0, 0));
const hookline = createHookline({ store: createMemoryStore(), clock, secretsKey: "lifecycle-tests" });
let ws: string;
afterAll(() => hookline.close());
beforeAll(async () => {
  ws = (await hookline.workspaces.create({ name: "acme" })).id;
});

const HOOKS = `export default {
  name: "Hooks", version: "0.1.0",
  props: { db: "$.service.db", http: "$.interface.http" },
  hooks: {
    async activate() { this.db.set("log", [...(this.db.get("log") ?? []), "activate"]); },
    async deactivate() { this.db.set("log", [...(this.db.get("log") ?? []), "deactivate"]); },
  },
  run() { this.$emit({ log: this.db.get("log") }); },
};`;

describe("activating and deactivating a source", () => {
  it("reactivates a deactivated source with only { active: true } (issue 14, item 6)", async () => {
    const calls: string[] = [];
    const onInvocation = (e: HooklineEvents["invocation"]) => calls.push(e.kind);
    hookline.events.on("invocation", onInvocation);
    const source = await hookline.sources.deploy(ws, { code: { code: HOOKS } });
    await hookline.sources.update(ws, source.id, { active: false });
    const inactive = await hookline.ingress(source.endpointId as string, {
      method: "GET",
      path: "/",
      headers: {},
    });
    expect(inactive.status).toBe(404);

    const reactivated = await hookline.sources.update(ws, source.id, { active: true });
    expect(reactivated).toMatchObject({ id: source.id, active: true, endpointId: source.endpointId });
    hookline.events.off("invocation", onInvocation);
    expect(calls).toEqual(["deploy", "activate", "deactivate", "activate"]);

    const reply = await hookline.ingress(source.endpointId as string, {
      method: "GET",
      path: "/",
      headers: {},
    });
    expect(reply.status).toBe(200);
    const [event] = (await hookline.sources.events(ws, source.id)).items;
    expect(event?.body).toEqual({ log: ["activate", "deactivate", "activate"] });
  });

  it("sources.activate and sources.deactivate toggle a source, twice in a row too", async () => {
    const source = await hookline.sources.deploy(ws, { code: { code: HOOKS }, active: false });
    expect(source.active).toBe(false);
    expect((await hookline.sources.activate(ws, source.id)).active).toBe(true);
    expect((await hookline.sources.activate(ws, source.id)).active).toBe(true);
    expect((await hookline.sources.deactivate(ws, source.id)).active).toBe(false);
    expect((await hookline.sources.deactivate(ws, source.id)).active).toBe(false);
    expect((await hookline.sources.activate(ws, source.id)).active).toBe(true);
    const run = await hookline.sources.run(ws, source.id);
    expect(run.emitted[0]?.body).toEqual({ log: ["activate", "deactivate", "activate"] });
  });
});
