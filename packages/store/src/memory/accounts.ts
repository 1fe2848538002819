/** Connected accounts in memory. */
import { newAccount } from "../adapter/rows.js";
import type { AccountStore } from "../types/index.js";
import { copy } from "./copy.js";
import { applyPatch, byWorkspace, inWorkspace, type MemoryState } from "./state.js";

/** The connected accounts of a memory store. */
export function memoryAccounts(s: MemoryState): AccountStore {
  return {
    async create(input) {
      s.open();
      const row = newAccount(input, s.clock());
      s.accounts.set(row.id, row);
      return copy(row);
    },
    async get(workspaceId, id) {
      s.open();
      return copy(inWorkspace(s.accounts.get(id), workspaceId));
    },
    async list(workspaceId, filter = {}) {
      s.open();
      return copy(
        byWorkspace(s.accounts, workspaceId).filter(
          (row) => filter.app === undefined || row.app === filter.app,
        ),
      );
    },
    async update(workspaceId, id, patch) {
      s.open();
      const row = inWorkspace(s.accounts.get(id), workspaceId);
      if (!row) return undefined;
      applyPatch(row, { name: patch.name, credentials: patch.credentials, updatedAt: s.clock() });
      return copy(row);
    },
    async delete(workspaceId, id) {
      s.open();
      if (!inWorkspace(s.accounts.get(id), workspaceId)) return false;
      return s.accounts.delete(id);
    },
  };
}
