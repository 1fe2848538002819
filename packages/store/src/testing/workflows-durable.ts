/**
 * Conformance: what durable workflow runs need of the store (issue 20): due times (`runAt`) that
 * the claim respects, paused executions, single-use flow tokens, step records with their tries and
 * resume data, and workflow settings.
 */
import { describe, expect } from "vitest";
import type { CreateExecutionInput, Execution, ExecutionStep, Store } from "../types/index.js";
import { nextWindow, type SuiteContext, unique } from "./context.js";

function parts(store: Store) {
  const { workflows, executions } = store;
  const queue = store.queue.executions;
  if (!workflows || !executions || !queue) throw new Error("the adapter declares workflows but lacks them");
  return { workflows, executions, queue };
}

/** Registers the durable-run tests. */
export function durableRunsSuite(t: SuiteContext): void {
  describe.skipIf(!t.options.workflows)("durable workflow runs (workflows)", () => {
    const setup = async () => {
      const { workflows } = parts(t.store);
      const ws = await t.workspace();
      const wf = await workflows.create({
        workspaceId: ws,
        name: unique("wf"),
        trigger: { type: "manual" },
        steps: [{ name: "a" }],
        active: true,
        settings: { retry: { count: 2 } },
      });
      return { ws, wf };
    };
    /** A `queued` manual execution of `workflowId` (extra fields override). */
    const queued = (ws: string, workflowId: string, extra: Partial<CreateExecutionInput> = {}) =>
      parts(t.store).executions.create({
        workspaceId: ws,
        workflowId,
        trigger: "manual",
        event: {},
        status: "queued",
        steps: [],
        ...extra,
      });
    const claimed = async (now: number, id: string): Promise<Execution | undefined> => {
      for (let i = 0; i < 20; i++) {
        const got = (await parts(t.store).queue.claim({ owner: "n1", now, leaseMs: 1000, limit: 100 })).find(
          (e) => e.id === id,
        );
        if (got) return got;
      }
      return undefined;
    };

    t.test("workflow settings round-trip and are removed with null", async () => {
      const { workflows } = parts(t.store);
      const { ws, wf } = await setup();
      expect((await workflows.get(ws, wf.id))?.settings).toEqual({ retry: { count: 2 } });
      const cleared = await workflows.update(ws, wf.id, { settings: null });
      expect(cleared?.settings).toBeUndefined();
    });

    t.test("a queued execution is claimed only once its runAt is due; the claim clears runAt", async () => {
      const { executions } = parts(t.store);
      const { ws, wf } = await setup();
      const now = nextWindow();
      const exe = await queued(ws, wf.id, { runAt: now + 5000 });
      expect(exe.runAt).toBe(now + 5000);
      expect(await claimed(now + 4999, exe.id)).toBeUndefined();
      const got = await claimed(now + 5000, exe.id);
      expect(got).toMatchObject({ status: "running", leaseOwner: "n1" });
      expect(got?.runAt).toBeUndefined();
      // Back to the queue for a retry, due later.
      const back = await executions.update(ws, exe.id, { status: "queued", runAt: now + 9000 });
      expect(back).toMatchObject({ status: "queued", runAt: now + 9000 });
      expect(back?.leaseOwner).toBeUndefined();
      expect(await claimed(now + 8000, exe.id)).toBeUndefined();
      expect(await claimed(now + 9000, exe.id)).toBeDefined();
    });

    t.test("delayed and suspended executions are claimed at runAt; without runAt never", async () => {
      const { executions } = parts(t.store);
      const { ws, wf } = await setup();
      const now = nextWindow();
      const make = () => queued(ws, wf.id);
      const delayed = await make();
      await claimed(now, delayed.id);
      await executions.update(ws, delayed.id, { status: "delayed", runAt: now + 100 });
      const suspended = await make();
      await claimed(now, suspended.id);
      await executions.update(ws, suspended.id, { status: "suspended", runAt: null });
      expect(await claimed(now + 99, delayed.id)).toBeUndefined();
      expect(await claimed(now + 100, delayed.id)).toMatchObject({ status: "running" });
      expect(await claimed(now + 10_000_000, suspended.id)).toBeUndefined();
    });

    t.test(
      "flow tokens: resume queues the run with its data, once; cancel exits it; wrong hash nothing",
      async () => {
        const { executions } = parts(t.store);
        const { ws, wf } = await setup();
        const now = nextWindow();
        const exe = await queued(ws, wf.id);
        await claimed(now, exe.id);
        await executions.update(ws, exe.id, {
          status: "suspended",
          runAt: now + 1_000_000,
          tokens: { resume: "r".repeat(64), cancel: "c".repeat(64) },
        });
        expect(await executions.useToken(exe.id, "resume", "x".repeat(64), now + 1)).toBeUndefined();
        // A cancel token does not resume.
        expect(await executions.useToken(exe.id, "resume", "c".repeat(64), now + 1)).toBeUndefined();
        const used = await executions.useToken(exe.id, "resume", "r".repeat(64), now + 2, { ok: [1, "two"] });
        expect(used).toMatchObject({ status: "queued", runAt: now + 2, resumeData: { ok: [1, "two"] } });
        expect(await executions.useToken(exe.id, "resume", "r".repeat(64), now + 3)).toBeUndefined();
        expect(await executions.useToken(exe.id, "cancel", "c".repeat(64), now + 3)).toBeUndefined();
        const running = await claimed(now + 2, exe.id);
        expect(running?.resumeData).toEqual({ ok: [1, "two"] });
        const cleared = await executions.update(ws, exe.id, {
          clearResumeData: true,
          status: "delayed",
          runAt: now + 50,
          tokens: { resume: "s".repeat(64), cancel: "d".repeat(64) },
        });
        expect(cleared?.resumeData).toBeUndefined();
        const cancelled = await executions.useToken(exe.id, "cancel", "d".repeat(64), now + 10);
        expect(cancelled).toMatchObject({ status: "exited", exitReason: "cancelled", finishedAt: now + 10 });
        expect(await executions.useToken(exe.id, "resume", "s".repeat(64), now + 11)).toBeUndefined();
      },
    );

    t.test(
      "a step's tokens stored with its start: a resume while it runs stores the data; the guarded pause then fails",
      async () => {
        const { executions } = parts(t.store);
        const { ws, wf } = await setup();
        const now = nextWindow();
        const pending: ExecutionStep = { name: "a", status: "pending", logs: [], attempts: 0 };
        const exe = await queued(ws, wf.id, { steps: [pending] });
        await claimed(now, exe.id);
        const running: ExecutionStep = { ...pending, status: "running", attempts: 1 };
        const tokens = { resume: "e".repeat(64), cancel: "f".repeat(64) };
        expect(await executions.putSteps(ws, exe.id, [{ index: 0, step: running }], tokens)).toBe(true);
        // A cancel needs a paused run; a resume of a running one keeps its status.
        expect(await executions.useToken(exe.id, "cancel", "f".repeat(64), now + 1)).toBeUndefined();
        const early = await executions.useToken(exe.id, "resume", "e".repeat(64), now + 1, { early: 1 });
        expect(early).toMatchObject({ status: "running", resumeData: { early: 1 } });
        const guarded = await executions.update(ws, exe.id, {
          status: "suspended",
          runAt: now + 100,
          ifNoResumeData: true,
        });
        expect(guarded).toBeUndefined();
        expect((await executions.get(ws, exe.id))?.status).toBe("running");
        // The next start's tokens clear what the previous step's URL left.
        expect(await executions.putSteps(ws, exe.id, [{ index: 0, step: running }], tokens)).toBe(true);
        expect((await executions.get(ws, exe.id))?.resumeData).toBeUndefined();
        const paused = await executions.update(ws, exe.id, {
          status: "suspended",
          runAt: now + 100,
          ifNoResumeData: true,
        });
        expect(paused?.status).toBe("suspended");
      },
    );

    t.test("step records keep their tries, pause and resume data", async () => {
      const { executions } = parts(t.store);
      const { ws, wf } = await setup();
      const exe = await queued(ws, wf.id, {
        steps: [{ name: "a", status: "pending", logs: [], attempts: 0 }],
      });
      const record: ExecutionStep = {
        name: "a",
        status: "succeeded",
        logs: [],
        attempts: 3,
        attemptErrors: [
          { code: "interrupted", message: "died" },
          { code: "error", name: "Error", message: "boom" },
        ],
        pause: { kind: "suspend", until: 5, outcome: "resumed" },
        resumeData: { body: "\u0000" },
      };
      expect(await executions.putStep(ws, exe.id, 0, record)).toBe(true);
      expect((await executions.get(ws, exe.id))?.steps[0]).toEqual(record);
      // Several records in one write; an index out of range writes nothing.
      const next: ExecutionStep = { name: "b", status: "running", logs: [], attempts: 1, startedAt: 7 };
      expect(
        await executions.putSteps(ws, exe.id, [
          { index: 0, step: { ...record, attempts: 4 } },
          { index: 2, step: next },
        ]),
      ).toBe(false);
      expect((await executions.get(ws, exe.id))?.steps[0]?.attempts).toBe(3);
      const two = await executions.create({
        workspaceId: ws,
        workflowId: wf.id,
        trigger: "manual",
        event: {},
        status: "queued",
        steps: [
          { name: "a", status: "pending", logs: [], attempts: 0 },
          { name: "b", status: "pending", logs: [], attempts: 0 },
        ],
      });
      expect(
        await executions.putSteps(ws, two.id, [
          { index: 0, step: record },
          { index: 1, step: next },
        ]),
      ).toBe(true);
      expect((await executions.get(ws, two.id))?.steps).toEqual([record, next]);
      expect(await executions.putSteps(await t.workspace(), two.id, [{ index: 0, step: record }])).toBe(
        false,
      );
    });

    t.test(
      "the claim holds a workflow's limits: maxRunning at once, throttleLimit starts per interval",
      async () => {
        const { workflows, executions, queue } = parts(t.store);
        const ws = await t.workspace();
        const make = async (limits: Record<string, number>) => {
          const wf = await workflows.create({
            workspaceId: ws,
            name: unique("wf"),
            trigger: { type: "manual" },
            steps: [{ name: "a" }],
            active: true,
            limits,
          });
          const ids: string[] = [];
          for (let i = 0; i < 4; i++) {
            const exe = await queued(ws, wf.id);
            ids.push(exe.id);
          }
          return { wf, ids };
        };
        const capped = await make({ maxRunning: 2 });
        expect((await workflows.get(ws, capped.wf.id))?.limits).toEqual({ maxRunning: 2 });
        const throttled = await make({ throttleLimit: 1, throttleIntervalMs: 1000 });
        const now = nextWindow() + 10_000;
        // Every claim takes what is due of both workflows (and of other tests): sort out each one's.
        const taken = new Set<string>();
        const claim = async (at: number) => {
          for (const e of await queue.claim({ owner: "n1", now: at, leaseMs: 60_000, limit: 100 }))
            taken.add(e.id);
        };
        const of = (ids: string[]) => ids.filter((id) => taken.has(id));
        await claim(now);
        expect(of(capped.ids)).toEqual(capped.ids.slice(0, 2));
        expect(of(throttled.ids)).toEqual(throttled.ids.slice(0, 1));
        await claim(now + 500);
        expect(of(capped.ids)).toHaveLength(2); // two running: none more
        expect(of(throttled.ids)).toHaveLength(1); // one start in this second
        await executions.update(ws, capped.ids[0] as string, { status: "succeeded", finishedAt: now });
        await claim(now + 1001);
        expect(of(capped.ids)).toEqual(capped.ids.slice(0, 3));
        expect(of(throttled.ids)).toEqual(throttled.ids.slice(0, 2));
        // A run that started before (back from a delay) is not a new start: not throttled.
        await executions.update(ws, throttled.ids[0] as string, { status: "delayed", runAt: now + 1002 });
        taken.delete(throttled.ids[0] as string);
        await claim(now + 1002);
        expect(of(throttled.ids)).toEqual(throttled.ids.slice(0, 2));
        const cleared = await workflows.update(ws, capped.wf.id, { limits: null });
        expect(cleared?.limits).toBeUndefined();
        expect(await executions.countQueued(capped.wf.id)).toBe(1);
        await claim(now + 1003);
        expect(of(capped.ids)).toEqual(capped.ids);
        expect(await executions.countQueued(capped.wf.id)).toBe(0);
      },
    );
  });
}
