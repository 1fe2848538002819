/**
 * Where executions come from and who runs them: accepted (`running` and leased to this node when
 * this node runs it at once, `queued` otherwise), claimed from the store's execution queue by
 * exactly one node, run by runner.ts. The loop claims on `wake()` and every `pollMs` once started,
 * and returns the executions of dead nodes to the queue (`sweep`).
 */
import type { Execution, ExecutionStep, ExecutionTrigger, Workflow } from "@hookline/store";
import type { EngineContext } from "../context.js";
import { EXECUTION_LEASE_MS, pendingStep, type RunHooks, runExecution } from "./runner.js";
import type { StepCache } from "./steps.js";
import { wfStores } from "./stores.js";

/** How many executions one node runs at once. */
const MAX_RUNNING = 32;

/** Whether the claim must start a workflow's runs (it has a concurrency or throttle limit). @internal */
export const isLimited = (wf: Workflow): boolean =>
  wf.limits?.maxRunning !== undefined || wf.limits?.throttleLimit !== undefined;

/**
 * Whether a workflow's queue is full (`queue_size` runs queued): the seconds to wait before trying
 * again, or undefined when there is room. @internal
 */
export async function queueFull(ctx: EngineContext, wf: Workflow): Promise<number | undefined> {
  const size = wf.limits?.queueSize;
  if (size === undefined) return undefined;
  const queued = await wfStores(ctx.store).executions.countQueued(wf.id);
  if (queued < size) return undefined;
  return Math.max(1, Math.ceil((wf.limits?.throttleIntervalMs ?? 1_000) / 1_000));
}

/** What starts an execution. @internal */
export interface StartInput {
  trigger: ExecutionTrigger;
  event: unknown;
  context?: Record<string, unknown>;
  /** The step records to start with (a test run from a step: copies of the earlier ones); default all pending. */
  steps?: ExecutionStep[];
}

/** The executor of one engine. @internal */
export interface Executor {
  /**
   * Accepts an execution leased to this node and runs it; resolves with the final record (a
   * workflow with limits: queues it and resolves with the `queued` record).
   */
  runNow(wf: Workflow, input: StartInput, hooks?: RunHooks): Promise<Execution>;
  /**
   * Accepts an execution leased to this node (durably: it is stored before this resolves), then runs
   * it in the background; resolves with the accepted record.
   */
  accept(wf: Workflow, input: StartInput, hooks?: RunHooks): Promise<Execution>;
  /**
   * Runs a test execution here at once, whatever the workflow's limits (a test is one person's
   * run, as on Pipedream); resolves with the record where it ended or paused.
   */
  runTest(wf: Workflow, input: StartInput, hooks?: RunHooks): Promise<Execution>;
  /** Queues an execution for any node to claim; resolves with the `queued` record. */
  enqueue(wf: Workflow, input: StartInput): Promise<Execution>;
  /** Claims queued executions now (and on every poll once started). */
  wake(): void;
  start(pollMs: number): void;
  /** Stops claiming and waits for the executions running here. */
  close(): Promise<void>;
}

/** Creates the executor. @internal */
export function createExecutor(ctx: EngineContext, cache: StepCache, leaseMs = EXECUTION_LEASE_MS): Executor {
  const running = new Set<Promise<unknown>>();
  const wakeTimers = new Set<NodeJS.Timeout>();
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
      steps: input.steps ?? wf.steps.map((s) => pendingStep(String(s.name))),
      ...(status === "running"
        ? { leaseOwner: ctx.nodeId, leaseExpiresAt: now + leaseMs, startedAt: now }
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
    await run(wf, exe);
  }

  /** Runs an execution; one that pauses or waits for a retry soon wakes this node when it is due. */
  async function run(wf: Workflow, exe: Execution, hooks: RunHooks = {}): Promise<Execution> {
    const out = await runExecution(ctx, cache, wf, exe, { ...hooks, leaseMs });
    const wait = out.runAt === undefined ? undefined : out.runAt - ctx.clock.now();
    if (wait !== undefined && wait < 60_000 && !closed) {
      const timer = setTimeout(
        () => {
          wakeTimers.delete(timer);
          wake();
        },
        Math.max(0, wait),
      );
      timer.unref?.();
      wakeTimers.add(timer);
    }
    return out;
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
        leaseMs,
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
      // A workflow with limits runs only through the queue's claim, which holds them.
      if (isLimited(wf)) return this.enqueue(wf, input);
      const exe = await create(wf, input, "running");
      return track(run(wf, exe, hooks));
    },
    async accept(wf, input, hooks) {
      if (isLimited(wf)) return this.enqueue(wf, input);
      const exe = await create(wf, input, "running");
      track(run(wf, exe, hooks)).catch(() => undefined);
      return exe;
    },
    async runTest(wf, input, hooks) {
      const exe = await create(wf, input, "running");
      return track(run(wf, exe, hooks));
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
      for (const t of wakeTimers) clearTimeout(t);
      await claiming;
      await Promise.allSettled([...running]);
    },
  };
}
