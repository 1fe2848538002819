/** Workflows, executions (with their step records), environment variables and the execution queue, in memory. */
import { clampLimit, pageOf, parseIdCursor } from "../adapter/paging.js";
import { isDue, isFinalStatus, newExecution, newWorkflow } from "../adapter/workflow-rows.js";
import {
  type EnvStore,
  type Execution,
  type ExecutionQueue,
  type ExecutionStore,
  StoreError,
  type Workflow,
  type WorkflowStore,
} from "../types/index.js";
import { copyPlain as copy } from "./copy.js";
import { applyPatch, byWorkspace, inWorkspace, type MemoryState } from "./state.js";

/** Newest first by id (ids sort by creation time). */
const newestFirst = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The workflows of a memory store. */
export function memoryWorkflows(s: MemoryState): WorkflowStore {
  const endpointTaken = (endpointId: string, except?: string) => {
    for (const w of s.workflows.values()) if (w.id !== except && w.endpointId === endpointId) return true;
    for (const d of s.deployed.values()) if (d.endpointId === endpointId) return true;
    return false;
  };
  return {
    async create(input) {
      s.open();
      const row = newWorkflow(input, s.clock());
      if (s.workflows.has(row.id)) throw new StoreError("conflict", `Workflow ${row.id} exists`);
      if (input.endpointId !== undefined && endpointTaken(input.endpointId)) {
        throw new StoreError("conflict", `Endpoint ${input.endpointId} is taken`);
      }
      s.workflows.set(row.id, row);
      return copy(row);
    },
    async get(workspaceId, id) {
      s.open();
      return copy(inWorkspace(s.workflows.get(id), workspaceId));
    },
    async getByEndpoint(endpointId) {
      s.open();
      for (const row of s.workflows.values()) if (row.endpointId === endpointId) return copy(row);
      return undefined;
    },
    async list(workspaceId, options = {}) {
      s.open();
      const limit = clampLimit(options.limit, 50, 100);
      const before = parseIdCursor(options.before, "p", "before");
      const rows = byWorkspace(s.workflows, workspaceId)
        .filter((w) => before === undefined || w.id < before)
        .sort(newestFirst)
        .slice(0, limit + 1);
      return copy(pageOf(rows, limit, (w) => w.id));
    },
    async listBySource(workspaceId, sourceId) {
      s.open();
      return copy(
        byWorkspace(s.workflows, workspaceId)
          .filter((w) => w.active && w.sourceId === sourceId)
          .sort((a, b) => -newestFirst(a, b)),
      );
    },
    async update(workspaceId, id, patch) {
      s.open();
      const row = inWorkspace(s.workflows.get(id), workspaceId);
      if (!row) return undefined;
      if (typeof patch.endpointId === "string" && endpointTaken(patch.endpointId, id)) {
        throw new StoreError("conflict", `Endpoint ${patch.endpointId} is taken`);
      }
      applyPatch(row, { ...patch, updatedAt: s.clock() });
      return copy(row);
    },
    async delete(workspaceId, id) {
      s.open();
      if (!inWorkspace(s.workflows.get(id), workspaceId)) return false;
      s.workflows.delete(id);
      for (const exe of [...s.executions.values()]) {
        if (exe.workflowId !== id) continue;
        s.executions.delete(exe.id);
        s.flowTokens.delete(exe.id);
      }
      s.timers.delete(id);
      s.logs.delete(id);
      for (const sub of [...s.subscriptions.values()]) {
        if (sub.emitterId === id || sub.listenerId === id) s.subscriptions.delete(sub.id);
      }
      // Its unfinished `$.send.http` requests fail instead of retrying for days.
      s.cancelDeliveries((d) => d.request !== undefined && d.webhookId === id, "workflow_deleted");
      return true;
    },
  };
}

/** The executions of a memory store. */
export function memoryExecutions(s: MemoryState): ExecutionStore {
  return {
    async create(input) {
      s.open();
      if (!inWorkspace(s.workflows.get(input.workflowId), input.workspaceId)) {
        throw new StoreError("not_found", `No workflow ${input.workflowId} in this workspace`, "workflowId");
      }
      const row = newExecution(input, s.clock());
      if (s.executions.has(row.id)) throw new StoreError("conflict", `Execution ${row.id} exists`);
      s.executions.set(row.id, row);
      return copy(row);
    },
    async get(workspaceId, id) {
      s.open();
      return copy(inWorkspace(s.executions.get(id), workspaceId));
    },
    async list(workspaceId, workflowId, options = {}) {
      s.open();
      const limit = clampLimit(options.limit, 50, 100);
      const before = parseIdCursor(options.before, "exe", "before");
      const rows: Execution[] = [];
      for (const exe of s.executions.values()) {
        if (exe.workspaceId !== workspaceId || exe.workflowId !== workflowId) continue;
        if (before !== undefined && exe.id >= before) continue;
        if (options.status !== undefined && exe.status !== options.status) continue;
        rows.push(exe);
      }
      rows.sort(newestFirst);
      return copy(pageOf(rows.slice(0, limit + 1), limit, (e) => e.id));
    },
    async update(workspaceId, id, patch) {
      s.open();
      const row = inWorkspace(s.executions.get(id), workspaceId);
      if (!row) return undefined;
      const { tokens, clearResumeData, ifNoResumeData, ...fields } = patch;
      if (ifNoResumeData && row.resumeData !== undefined) return undefined;
      applyPatch(row, { ...fields, updatedAt: s.clock() });
      if (tokens !== undefined) {
        if (tokens === null) s.flowTokens.delete(id);
        else s.flowTokens.set(id, { ...tokens });
      }
      if (clearResumeData) delete row.resumeData;
      if (patch.status !== undefined && patch.status !== "running") {
        delete row.leaseOwner;
        delete row.leaseExpiresAt;
      }
      return copy(row);
    },
    async useToken(id, kind, hash, now, data) {
      s.open();
      const row = s.executions.get(id);
      const tokens = s.flowTokens.get(id);
      const running = row?.status === "running" && kind === "resume";
      if (!row || !tokens || (row.status !== "delayed" && row.status !== "suspended" && !running)) {
        return undefined;
      }
      if (tokens[kind] !== hash) return undefined;
      s.flowTokens.delete(id);
      if (running) row.resumeData = data === undefined ? null : copy(data);
      else if (kind === "resume") {
        row.status = "queued";
        row.runAt = now;
        row.resumeData = data === undefined ? null : copy(data);
      } else {
        row.status = "exited";
        row.exitReason = "cancelled";
        row.finishedAt = now;
        delete row.runAt;
      }
      row.updatedAt = now;
      return copy(row);
    },
    async countQueued(workflowId) {
      s.open();
      let n = 0;
      for (const e of s.executions.values()) if (e.workflowId === workflowId && e.status === "queued") n++;
      return n;
    },
    async trim(workflowId, keep) {
      s.open();
      const rows = [...s.executions.values()].filter((e) => e.workflowId === workflowId).sort(newestFirst);
      let count = 0;
      for (const row of rows.slice(Math.max(0, keep))) {
        if (!isFinalStatus(row.status)) continue;
        s.executions.delete(row.id);
        count++;
      }
      return count;
    },
    async putSteps(workspaceId, id, steps, tokens) {
      s.open();
      const row = inWorkspace(s.executions.get(id), workspaceId);
      const fits = (i: number) => Number.isInteger(i) && i >= 0 && i < (row?.steps.length ?? 0);
      if (!row || !steps.every((e) => fits(e.index))) return false;
      for (const { index, step } of steps) row.steps[index] = copy(step);
      if (tokens) {
        s.flowTokens.set(id, { ...tokens });
        delete row.resumeData;
      }
      row.updatedAt = s.clock();
      return true;
    },
    async putStep(workspaceId, id, index, step) {
      s.open();
      const row = inWorkspace(s.executions.get(id), workspaceId);
      if (!row || !Number.isInteger(index) || index < 0 || index >= row.steps.length) return false;
      row.steps[index] = copy(step);
      row.updatedAt = s.clock();
      return true;
    },
  };
}

/** The execution side of a memory store's queue. */
export function memoryExecutionQueue(s: MemoryState): ExecutionQueue {
  return {
    async claim({ owner, now, leaseMs, limit }) {
      s.open();
      const claimed: Execution[] = [];
      const due = [...s.executions.values()]
        .filter((row) => isDue(row, now))
        .sort((a, b) => (a.runAt ?? 0) - (b.runAt ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      // Free slots of limited workflows, counted once per claim.
      const room = new Map<string, { running: number; starts: number }>();
      const roomOf = (workflowId: string, limits: NonNullable<Workflow["limits"]>) => {
        let r = room.get(workflowId);
        if (!r) {
          const since = now - (limits.throttleIntervalMs ?? 0);
          let running = 0;
          let starts = 0;
          for (const e of s.executions.values()) {
            if (e.workflowId !== workflowId) continue;
            if (e.status === "running" && (e.leaseExpiresAt ?? 0) > now) running++;
            if (e.startedAt !== undefined && e.startedAt > since) starts++;
          }
          r = {
            running: (limits.maxRunning ?? Number.POSITIVE_INFINITY) - running,
            starts: (limits.throttleLimit ?? Number.POSITIVE_INFINITY) - starts,
          };
          room.set(workflowId, r);
        }
        return r;
      };
      for (const row of due) {
        if (claimed.length >= limit) break;
        const limits = s.workflows.get(row.workflowId)?.limits;
        if (limits) {
          const r = roomOf(row.workflowId, limits);
          const first = row.startedAt === undefined;
          if (r.running <= 0 || (first && r.starts <= 0)) continue;
          r.running--;
          if (first) r.starts--;
        }
        row.status = "running";
        delete row.runAt;
        row.leaseOwner = owner;
        row.leaseExpiresAt = now + leaseMs;
        row.startedAt ??= now;
        row.updatedAt = now;
        claimed.push(copy(row));
      }
      return claimed;
    },
    async sweep(now) {
      s.open();
      let count = 0;
      for (const row of s.executions.values()) {
        if (row.status === "running" && row.leaseExpiresAt !== undefined && row.leaseExpiresAt <= now) {
          row.status = "queued";
          delete row.leaseOwner;
          delete row.leaseExpiresAt;
          row.updatedAt = now;
          count++;
        }
      }
      return count;
    },
  };
}

/** The environment variables of a memory store. */
export function memoryEnv(s: MemoryState): EnvStore {
  const key = (workspaceId: string, name: string) => `${workspaceId}\0${name}`;
  return {
    async set(workspaceId, name, value) {
      s.open();
      const now = s.clock();
      const previous = s.env.get(key(workspaceId, name));
      const row = { workspaceId, name, value, createdAt: previous?.createdAt ?? now, updatedAt: now };
      s.env.set(key(workspaceId, name), row);
      return copy(row);
    },
    async get(workspaceId, name) {
      s.open();
      return copy(s.env.get(key(workspaceId, name)));
    },
    async list(workspaceId) {
      s.open();
      return copy(
        byWorkspace(s.env, workspaceId).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      );
    },
    async delete(workspaceId, name) {
      s.open();
      return s.env.delete(key(workspaceId, name));
    },
  };
}
