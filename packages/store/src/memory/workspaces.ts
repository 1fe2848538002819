/** Workspaces in memory. */
import { newWorkspace } from "../adapter/rows.js";
import { StoreError, type WorkspaceStore } from "../types/index.js";
import { copy } from "./copy.js";
import type { MemoryState } from "./state.js";

/** The workspaces of a memory store. */
export function memoryWorkspaces(s: MemoryState): WorkspaceStore {
  return {
    async create(input) {
      s.open();
      const row = newWorkspace(input, s.clock());
      if (s.workspaces.has(row.id)) throw new StoreError("conflict", `Workspace ${row.id} exists`);
      s.workspaces.set(row.id, row);
      return copy(row);
    },
    async get(id) {
      s.open();
      return copy(s.workspaces.get(id));
    },
    async list() {
      s.open();
      return copy([...s.workspaces.values()]);
    },
    async revoke(id) {
      s.open();
      const workspace = s.workspaces.get(id);
      if (!workspace || workspace.revokedAt !== undefined) return false;
      workspace.revokedAt = s.clock();
      return true;
    },
  };
}
