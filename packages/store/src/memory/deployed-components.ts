/** Deployed components in memory. */
import { newDeployedComponent } from "../adapter/rows.js";
import { type DeployedComponentStore, StoreError } from "../types/index.js";
import { copy } from "./copy.js";
import { applyPatch, byWorkspace, inWorkspace, type MemoryState } from "./state.js";

/** The deployed components of a memory store. */
export function memoryDeployedComponents(s: MemoryState): DeployedComponentStore {
  return {
    async create(input) {
      s.open();
      const row = newDeployedComponent(input, s.clock());
      if (s.deployed.has(row.id)) throw new StoreError("conflict", `Deployed component ${row.id} exists`);
      for (const other of s.deployed.values()) {
        if (other.workspaceId === input.workspaceId && other.slug === input.slug) {
          throw new StoreError("conflict", `Slug ${input.slug} is taken`);
        }
        if (input.endpointId !== undefined && other.endpointId === input.endpointId) {
          throw new StoreError("conflict", `Endpoint ${input.endpointId} is taken`);
        }
      }
      s.deployed.set(row.id, row);
      return copy(row);
    },
    async get(workspaceId, id) {
      s.open();
      return copy(inWorkspace(s.deployed.get(id), workspaceId));
    },
    async getBySlug(workspaceId, slug) {
      s.open();
      for (const row of s.deployed.values()) {
        if (row.workspaceId === workspaceId && row.slug === slug) return copy(row);
      }
      return undefined;
    },
    async getByEndpoint(endpointId) {
      s.open();
      for (const row of s.deployed.values()) if (row.endpointId === endpointId) return copy(row);
      return undefined;
    },
    async list(workspaceId) {
      s.open();
      return copy(byWorkspace(s.deployed, workspaceId));
    },
    async update(workspaceId, id, patch) {
      s.open();
      const row = inWorkspace(s.deployed.get(id), workspaceId);
      if (!row) return undefined;
      for (const other of s.deployed.values()) {
        if (other.id === id) continue;
        if (patch.slug !== undefined && other.workspaceId === workspaceId && other.slug === patch.slug) {
          throw new StoreError("conflict", `Slug ${patch.slug} is taken`);
        }
        if (typeof patch.endpointId === "string" && other.endpointId === patch.endpointId) {
          throw new StoreError("conflict", `Endpoint ${patch.endpointId} is taken`);
        }
      }
      applyPatch(row, { ...patch, updatedAt: s.clock() });
      return copy(row);
    },
    async delete(workspaceId, id) {
      s.open();
      if (!inWorkspace(s.deployed.get(id), workspaceId)) return false;
      s.deployed.delete(id);
      s.kv.delete(id);
      s.kvVersions.delete(id);
      s.dedupe.delete(id);
      s.timers.delete(id);
      s.logs.delete(id);
      for (const sub of [...s.subscriptions.values()]) {
        if (sub.emitterId === id || sub.listenerId === id) s.subscriptions.delete(sub.id);
      }
      return true;
    },
  };
}
