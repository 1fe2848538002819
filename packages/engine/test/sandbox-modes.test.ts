/**
 * The engine in both sandbox modes (issue 15): `sandboxes: { mode: "pool" }` runs the same
 * lifecycle (hooks, db, HTTP runs, manual runs) as the in-thread default, and an HTTP-triggered
 * run gets `limits.httpTimeoutMs`, shorter than timers' and hooks' `runTimeoutMs`.
 */
import { createMemoryStore } from "@hookline/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHookline, type Hookline } from "../src/index.js";

const HOOKS = `export default {
  name: "Hooks", version: "0.1.0",
  props: { db: "$.service.db", http: "$.interface.http" },
  hooks: {
    async activate() { this.db.set("log", [...(this.db.get("log") ?? []), "activate"]); },
    async deactivate() { this.db.set("log", [...(this.db.get("log") ?? []), "deactivate"]); },
  },
  async run(event) {
    const log = await this.db.get("log");
    this.db.set("runs", (this.db.get("runs") ?? 0) + 1);
    this.$emit({ log, runs: this.db.get("runs") });
  },
};`;

const SLOW = `export default {
  name: "Slow", version: "0.1.0",
  props: { http: "$.interface.http" },
  async run(event) { const until = Date.now() + 1500; while (Date.now() < until) {} this.$emit({ done: true }); },
};`;

describe.each(["thread", "pool"] as const)("the engine with sandboxes in %s mode", (mode) => {
  let hookline: Hookline;
  let ws: string;
  beforeAll(async () => {
    hookline = createHookline({
      store: createMemoryStore(),
      secretsKey: "modes",
      worker: false,
      sandboxes: { mode, size: 2 },
      limits: { runTimeoutMs: 5_000, httpTimeoutMs: 500 },
    });
    ws = (await hookline.workspaces.create({ name: "acme" })).id;
  });
  afterAll(() => hookline.close());

  it("runs hooks, db reads and writes, HTTP and manual runs", { timeout: 60_000 }, async () => {
    const source = await hookline.sources.deploy(ws, { code: { code: HOOKS } });
    const reply = await hookline.ingress(source.endpointId as string, {
      method: "POST",
      path: "/",
      headers: {},
    });
    expect(reply.status).toBe(200);
    const manual = await hookline.sources.run(ws, source.id, {});
    expect(manual.error).toBeUndefined();
    await hookline.sources.update(ws, source.id, { active: false });
    await hookline.sources.update(ws, source.id, { active: true });
    const last = await hookline.sources.run(ws, source.id, {});
    expect(last.emitted.at(-1)?.body).toEqual({ log: ["activate", "deactivate", "activate"], runs: 3 });
  });

  it("ends an HTTP-triggered run at limits.httpTimeoutMs, a manual one at runTimeoutMs", {
    timeout: 60_000,
  }, async () => {
    const source = await hookline.sources.deploy(ws, { code: { code: SLOW } });
    await hookline.ingress(source.endpointId as string, { method: "POST", path: "/", headers: {} });
    const logs = await hookline.sources.logs(ws, source.id, {});
    expect(JSON.stringify(logs)).toMatch(/exceeded its deadline/);
    const manual = await hookline.sources.run(ws, source.id, {});
    expect(manual.error).toBeUndefined();
    expect(manual.emitted).toHaveLength(1);
  });

  it("gives a workflow step $.context (attempt, execution id) and $.flow.delay's URLs", {
    timeout: 60_000,
  }, async () => {
    const wf = await hookline.workflows.create(ws, {
      name: "context",
      trigger: { type: "manual" },
      steps: [
        {
          name: "a",
          component_code: `export default defineComponent({ async run({ $ }) {
            const urls = $.flow.delay(1000);
            return { attempt: $.context.attempt, id: $.context.execution_id, step: $.context.step, urls };
          } })`,
        },
      ],
    });
    const exe = await hookline.workflows.run(ws, wf.id);
    expect(exe.status).toBe("delayed");
    const value = exe.steps[0]?.returnValue as Record<string, any>;
    expect(value).toMatchObject({ attempt: 1, id: exe.id, step: "a" });
    expect(value.urls.resume_url).toContain(`/v1/flow/${exe.id}/resume?token=`);
    expect(exe.steps[0]?.pause).toMatchObject({ kind: "delay" });
  });
});
