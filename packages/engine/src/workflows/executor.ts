/**
 * Where executions come from and who runs them: accepted (`running` and leased to this node when
 * this node runs it at once, `queued` otherwise), claimed from the store's execution queue by
 * exactly one node, run by runner.ts. The loop claims on `wake()` and every `pollMs` once started,
 * and returns the executions of dead nodes to the queue (`sweep`).
 */
import type { Execution, ExecutionTrigger, Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import { EXECUTION_LEASE_MS, pendingStep, type RunHooks, runExecution } from "./runner.js";
import type { StepCache } from "./steps.js";
import { wfStores } from "./stores.js";

/** How many executions one node runs at once. */
const MAX_RUNNING = 32;

/** What starts an execution. @internal */
export interface StartInput {
  trigger: ExecutionTrigger;
  event: unknown;
  context?: Record<string, unknown>;
}

/** The executor of one engine. @internal */
export interface Executor {
  /** Accepts an execution leased to this node and runs it; resolves with the final record. */
  runNow(wf: Workflow, input: StartInput, hooks?: RunHooks): Promise<Execution>;
  /**
   * Accepts an execution leased to this node (durably: it is stored before this resolves), then runs
   * it in the background; resolves with the accepted record.
   */
  accept(wf: Workflow, input: StartInput, hooks?: RunHooks): Promise<Execution>;
  /** Queues an execution for any node to claim; resolves with the `queued` record. */
  enqueue(wf: Workflow, input: StartInput): Promise<Execution>;
  /** Claims queued executions now (and on every poll once started). */
  wake(): void;
  start(pollMs: number): void;
  /** Stops claiming and waits for the executions running here. */
  close(): Promise<void>;
}

/** Creates the executor. @internal */
export function createExecutor(ctx: EngineContext, cache: StepCache): Executor {
  const running = new Set<Promise<unknown>>();
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let claiming: Promise<void> | undefined;
  let again = false;

  const track = <T>(p: Promise<T>): Promise<T> => {
    running.add(p);
    void p.finally(() => running.delete(p)).catch(() => undefined);
    return p;
  };

  async function create(wf: Workflow, input: StartInput, status: "queued" | "running"): Promise<Execution> {
    const now = ctx.clock.now();
    const exe = await wfStores(ctx.store).executions.create({
      workspaceId: wf.workspaceId,
      workflowId: wf.id,
      trigger: input.trigger,
      event: input.event ?? {},
      ...(input.context ? { context: input.context } : {}),
      status,
      steps: wf.steps.map((s) => pendingStep(String(s.name))),
      ...(status === "running"
        ? { leaseOwner: ctx.nodeId, leaseExpiresAt: now + EXECUTION_LEASE_MS, startedAt: now }
        : {}),
    });
    ctx.notify("execution", { workspaceId: wf.workspaceId, workflowId: wf.id, executionId: exe.id, status });
    return exe;
  }

  /** Runs a claimed execution; a vanished workflow fails it. */
  async function runClaimed(exe: Execution): Promise<void> {
    const { workflows, executions } = wfStores(ctx.store);
    const wf = await workflows.get(exe.workspaceId, exe.workflowId);
    if (!wf) {
      await executions.update(exe.workspaceId, exe.id, {
        status: "failed",
        finishedAt: ctx.clock.now(),
        error: { code: "not_found", message: `The workflow ${exe.workflowId} was deleted` },
      });
      return;
    }
    await runExecution(ctx, cache, wf, exe);
  }

  async function claimLoop(): Promise<void> {
    const { queue } = wfStores(ctx.store);
    do {
      again = false;
      const free = MAX_RUNNING - running.size;
      if (free <= 0 || closed) return;
      const claimed = await queue.claim({
        owner: ctx.nodeId,
        now: ctx.clock.now(),
        leaseMs: EXECUTION_LEASE_MS,
        limit: free,
      });
      for (const exe of claimed)
        track(runClaimed(exe).catch(() => undefined)).then(
          () => wake(),
          () => wake(),
        );
      if (claimed.length === free) again = true;
    } while (again && !closed);
  }

  function wake(): void {
    if (closed) return;
    if (claiming) {
      again = true;
      return;
    }
    claiming = claimLoop()
      .catch(() => undefined)
      .finally(() => {
        claiming = undefined;
      });
  }

  return {
    async runNow(wf, input, hooks) {
      const exe = await create(wf, input, "running");
      return track(runExecution(ctx, cache, wf, exe, hooks));
    },
    async accept(wf, input, hooks) {
      const exe = await create(wf, input, "running");
      track(runExecution(ctx, cache, wf, exe, hooks)).catch(() => undefined);
      return exe;
    },
    async enqueue(wf, input) {
      const exe = await create(wf, input, "queued");
      wake();
      return exe;
    },
    wake,
    start(pollMs) {
      if (timer || closed || !ctx.store.workflows || !ctx.store.queue.executions) return;
      const loop = () => {
        timer = setTimeout(() => {
          wfStores(ctx.store)
            .queue.sweep(ctx.clock.now())
            .catch(() => 0)
            .then(() => wake())
            .finally(() => {
              if (!closed) loop();
            });
        }, pollMs);
        timer.unref?.();
      };
      loop();
    },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await claiming;
      await Promise.allSettled([...running]);
    },
  };
}
