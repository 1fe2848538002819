/** Saved components in memory. */
import { newSavedComponent } from "../adapter/rows.js";
import { newestComponent } from "../adapter/versions.js";
import { type SavedComponentStore, StoreError } from "../types/index.js";
import { copy } from "./copy.js";
import { byWorkspace, inWorkspace, type MemoryState } from "./state.js";

/** The saved components of a memory store. */
export function memorySavedComponents(s: MemoryState): SavedComponentStore {
  return {
    async create(input) {
      s.open();
      if (input.key !== undefined && input.version !== undefined) {
        for (const row of s.saved.values()) {
          if (
            row.workspaceId === input.workspaceId &&
            row.key === input.key &&
            row.version === input.version
          ) {
            throw new StoreError("conflict", `Component ${input.key}@${input.version} exists`);
          }
        }
      }
      const row = newSavedComponent(input, s.clock());
      s.saved.set(row.id, row);
      return copy(row);
    },
    async get(workspaceId, id) {
      s.open();
      return copy(inWorkspace(s.saved.get(id), workspaceId));
    },
    async list(workspaceId) {
      s.open();
      return copy(byWorkspace(s.saved, workspaceId));
    },
    async findByKey(workspaceId, key, version) {
      s.open();
      const candidates = [...s.saved.values()].filter(
        (row) =>
          row.key === key &&
          (row.workspaceId === workspaceId || row.published === "public") &&
          (version === undefined || row.version === version),
      );
      return copy(newestComponent(candidates, workspaceId));
    },
  };
}
