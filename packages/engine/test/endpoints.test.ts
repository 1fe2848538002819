// The one endpoint registry (endpoints.ts): a request to `/http/{endpointId}` resolves a source or a
// workflow with one lookup, kept in one cache; changes made on this node are seen at once.
import { createMemoryStore, type Store } from "@hookline/store";
import { afterEach, describe, expect, it } from "vitest";
import { createHookline, type Hookline } from "../src/index.js";

let engine: Hookline | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
});

/** A memory store counting its endpoint reads, by kind. */
function counting(store: Store) {
  const reads = { sources: 0, workflows: 0 };
  const sources = store.deployedComponents.getByEndpoint.bind(store.deployedComponents);
  store.deployedComponents.getByEndpoint = (id) => {
    reads.sources++;
    return sources(id);
  };
  const workflows = store.workflows;
  if (workflows) {
    const get = workflows.getByEndpoint.bind(workflows);
    workflows.getByEndpoint = (id) => {
      reads.workflows++;
      return get(id);
    };
  }
  return reads;
}

const SOURCE = `export default { name: "Echo", version: "0.1.0", props: { http: "$.interface.http" },
  run(e) { this.$emit(e.body); } };`;

describe("the endpoint registry", () => {
  it("resolves sources and workflows with one lookup, then from its cache; deletes are seen at once", async () => {
    const store = createMemoryStore();
    const reads = counting(store);
    engine = createHookline({ store, worker: false, secretsKey: "endpoints" });
    await engine.start();
    const ws = (await engine.workspaces.create({ name: "acme" })).id;
    const source = await engine.sources.deploy(ws, { code: { code: SOURCE } });
    const wf = await engine.workflows.create(ws, {
      name: "w",
      trigger: { type: "http" },
      steps: [{ name: "a", component_code: "export default defineComponent({ async run() { return 1 } })" }],
    });
    const post = (endpointId: string) =>
      (engine as Hookline).ingress(endpointId, { method: "POST", path: "/", headers: {}, body: "{}" });
    const before = { ...reads };
    for (let i = 0; i < 3; i++) {
      expect((await post(source.endpointId as string)).status).toBe(200);
      expect((await post(wf.trigger.endpoint_id as string)).status).toBe(200);
    }
    // One read of each kind per endpoint (both kinds at once), whatever the number of requests.
    expect(reads.sources - before.sources).toBe(2);
    expect(reads.workflows - before.workflows).toBe(2);

    await engine.workflows.delete(ws, wf.id);
    expect((await post(wf.trigger.endpoint_id as string)).status).toBe(404);
    await engine.sources.delete(ws, source.id);
    expect((await post(source.endpointId as string)).status).toBe(404);
    expect((await post("en_nothing")).status).toBe(404);
  });
});
