/**
 * Conformance: workflows, executions (with their step records), environment variables and the
 * execution queue, for adapters that declare `workflows`.
 */
import { describe, expect } from "vitest";
import type { Execution, ExecutionStep, Store } from "../types/index.js";
import { expectStoreError, nextWindow, type SuiteContext, unique } from "./context.js";

const STEP: ExecutionStep = { name: "a", status: "pending", logs: [], attempts: 0 };

/** The workflow parts of the store (the suite fails clearly when a declared adapter lacks one). */
function parts(store: Store) {
  const { workflows, executions, env } = store;
  const queue = store.queue.executions;
  if (!workflows || !executions || !env || !queue) {
    throw new Error(
      "the adapter declares workflows but lacks workflows, executions, env or queue.executions",
    );
  }
  return { workflows, executions, env, queue };
}

/** Registers the workflow tests. */
export function workflowsSuite(t: SuiteContext): void {
  describe.skipIf(!t.options.workflows)("workflows (workflows)", () => {
    const workflow = async (
      ws: string,
      extra: { endpointId?: string; sourceId?: string; active?: boolean } = {},
    ) =>
      parts(t.store).workflows.create({
        workspaceId: ws,
        name: unique("wf"),
        trigger: { type: "manual", nested: { a: [1, "two"] } },
        steps: [
          {
            name: "a",
            component_code: "export default {}",
            configured_props: { x: "{{steps.trigger.event}}" },
          },
        ],
        active: extra.active ?? true,
        ...(extra.endpointId ? { endpointId: extra.endpointId } : {}),
        ...(extra.sourceId ? { sourceId: extra.sourceId } : {}),
      });

    t.test("create, get, getByEndpoint, update and delete a workflow", async () => {
      const { workflows } = parts(t.store);
      const ws = await t.workspace();
      const endpointId = unique("en");
      const wf = await workflow(ws, { endpointId });
      expect(wf.id).toMatch(/^p_/);
      expect(wf).toMatchObject({
        workspaceId: ws,
        active: true,
        endpointId,
        trigger: { nested: { a: [1, "two"] } },
      });
      expect(await workflows.get(ws, wf.id)).toEqual(wf);
      expect(await workflows.get(await t.workspace(), wf.id)).toBeUndefined();
      expect((await workflows.getByEndpoint(endpointId))?.id).toBe(wf.id);
      await expectStoreError(workflow(ws, { endpointId }), "conflict");
      const updated = await workflows.update(ws, wf.id, { name: "renamed", active: false, endpointId: null });
      expect(updated).toMatchObject({ name: "renamed", active: false });
      expect(updated?.endpointId).toBeUndefined();
      expect(await workflows.getByEndpoint(endpointId)).toBeUndefined();
      expect(await workflows.update(ws, "p_00000000000000000000000000", { name: "x" })).toBeUndefined();
      expect(await workflows.delete(ws, wf.id)).toBe(true);
      expect(await workflows.get(ws, wf.id)).toBeUndefined();
      expect(await workflows.delete(ws, wf.id)).toBe(false);
    });

    t.test("list newest first with cursors; listBySource gives the active listeners", async () => {
      const { workflows } = parts(t.store);
      const ws = await t.workspace();
      const a = await workflow(ws, { sourceId: "dc_src" });
      const b = await workflow(ws, { sourceId: "dc_src", active: false });
      const c = await workflow(ws);
      const first = await workflows.list(ws, { limit: 2 });
      expect(first.items.map((w) => w.id)).toEqual([c.id, b.id]);
      const second = await workflows.list(ws, { limit: 2, before: first.nextCursor as string });
      expect(second.items.map((w) => w.id)).toEqual([a.id]);
      expect(second.nextCursor).toBeUndefined();
      await expectStoreError(workflows.list(ws, { before: "nope" }), "invalid", "before");
      expect((await workflows.listBySource(ws, "dc_src")).map((w) => w.id)).toEqual([a.id]);
    });

    t.test(
      "executions: create, putStep, update, list newest first by status; deleted with their workflow",
      async () => {
        const { workflows, executions } = parts(t.store);
        const ws = await t.workspace();
        const wf = await workflow(ws);
        await expectStoreError(
          executions.create({
            workspaceId: await t.workspace(),
            workflowId: wf.id,
            trigger: "manual",
            event: {},
            status: "queued",
            steps: [],
          }),
          "not_found",
        );
        const made: Execution[] = [];
        for (let i = 0; i < 3; i++) {
          made.push(
            await executions.create({
              workspaceId: ws,
              workflowId: wf.id,
              trigger: "http",
              event: { n: i, text: "\u0000\ud800" },
              context: { trigger: "http" },
              status: "queued",
              steps: [STEP, { ...STEP, name: "b" }],
            }),
          );
        }
        const exe = made[0] as Execution;
        expect(exe).toMatchObject({
          status: "queued",
          event: { n: 0, text: "\u0000\ud800" },
          steps: [STEP, { ...STEP, name: "b" }],
        });
        const record: ExecutionStep = {
          name: "a",
          status: "succeeded",
          returnValue: { ok: [1] },
          exports: { $summary: "done", n: 1 },
          summary: "done",
          logs: [{ level: "log", message: "hi", ts: 5 }],
          startedAt: 10,
          durationMs: 1.5,
          attempts: 1,
        };
        expect(await executions.putStep(ws, exe.id, 0, record)).toBe(true);
        expect(await executions.putStep(ws, exe.id, 2, record)).toBe(false);
        const done = await executions.update(ws, exe.id, {
          status: "failed",
          finishedAt: 20,
          error: { code: "error", name: "Error", message: "boom" },
        });
        expect(done).toMatchObject({ status: "failed", finishedAt: 20, error: { message: "boom" } });
        expect((await executions.get(ws, exe.id))?.steps[0]).toEqual(record);
        const both = await executions.update(ws, exe.id, { steps: [{ ...record, name: "x" }, record] });
        expect(both?.steps.map((s) => s.name)).toEqual(["x", "a"]);
        expect((await executions.get(ws, exe.id))?.steps).toEqual([{ ...record, name: "x" }, record]);
        const page = await executions.list(ws, wf.id, { limit: 2 });
        expect(page.items.map((e) => e.id)).toEqual([made[2]?.id, made[1]?.id]);
        const rest = await executions.list(ws, wf.id, { limit: 2, before: page.nextCursor as string });
        expect(rest.items.map((e) => e.id)).toEqual([exe.id]);
        expect((await executions.list(ws, wf.id, { status: "failed" })).items.map((e) => e.id)).toEqual([
          exe.id,
        ]);
        expect(await executions.get(await t.workspace(), exe.id)).toBeUndefined();
        // Retention keeps the newest; only ended executions are deleted.
        await executions.update(ws, (made[1] as Execution).id, { status: "succeeded" });
        expect(await executions.trim(wf.id, 1)).toBe(2);
        expect((await executions.list(ws, wf.id)).items.map((e) => e.id)).toEqual([made[2]?.id]);
        expect(await executions.trim(wf.id, 0)).toBe(0); // the last one is still queued
        await workflows.delete(ws, wf.id);
        expect(await executions.get(ws, exe.id)).toBeUndefined();
      },
    );

    t.test("the execution queue: claim once, lease, sweep expired leases back", async () => {
      const { executions, queue } = parts(t.store);
      const ws = await t.workspace();
      const wf = await workflow(ws);
      const exe = await executions.create({
        workspaceId: ws,
        workflowId: wf.id,
        trigger: "manual",
        event: {},
        status: "queued",
        steps: [],
      });
      const now = nextWindow();
      let mine: Execution | undefined;
      for (let i = 0; i < 20 && !mine; i++) {
        mine = (await queue.claim({ owner: "n1", now, leaseMs: 1000, limit: 100 })).find(
          (e) => e.id === exe.id,
        );
      }
      expect(mine).toMatchObject({ status: "running", leaseOwner: "n1", leaseExpiresAt: now + 1000 });
      const again = await queue.claim({ owner: "n2", now, leaseMs: 1000, limit: 100 });
      expect(again.find((e) => e.id === exe.id)).toBeUndefined();
      expect(await queue.sweep(now + 1000)).toBeGreaterThanOrEqual(1);
      expect((await executions.get(ws, exe.id))?.status).toBe("queued");
      const running = await executions.create({
        workspaceId: ws,
        workflowId: wf.id,
        trigger: "manual",
        event: {},
        status: "running",
        steps: [],
        leaseOwner: "n1",
        leaseExpiresAt: now + 5000,
        startedAt: now,
      });
      expect(running).toMatchObject({ status: "running", leaseOwner: "n1", startedAt: now });
      const finished = await executions.update(ws, running.id, { status: "succeeded", finishedAt: now + 1 });
      expect(finished?.leaseOwner).toBeUndefined();
    });

    t.test("environment variables: set replaces, list sorted by name, delete; per workspace", async () => {
      const { env } = parts(t.store);
      const ws = await t.workspace();
      await env.set(ws, "B", "sealed-1");
      const first = await env.set(ws, "A", "sealed-2");
      const replaced = await env.set(ws, "A", "sealed-3");
      expect(replaced).toMatchObject({ name: "A", value: "sealed-3", createdAt: first.createdAt });
      expect((await env.list(ws)).map((v) => v.name)).toEqual(["A", "B"]);
      expect(await env.get(await t.workspace(), "A")).toBeUndefined();
      expect(await env.delete(ws, "A")).toBe(true);
      expect(await env.delete(ws, "A")).toBe(false);
      expect((await env.list(ws)).map((v) => v.name)).toEqual(["B"]);
    });
  });
}
