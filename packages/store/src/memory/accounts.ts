/** Connected accounts in memory, and their refresh leases. */
import { newAccount } from "../adapter/rows.js";
import type { Account, AccountPatch, AccountStore } from "../types/index.js";
import { copy } from "./copy.js";
import { applyPatch, byWorkspace, inWorkspace, type MemoryState } from "./state.js";

/** The connected accounts of a memory store. */
export function memoryAccounts(s: MemoryState): AccountStore {
  const patch = (row: Account, p: AccountPatch) =>
    applyPatch(row, {
      name: p.name,
      credentials: p.credentials,
      status: p.status,
      expiresAt: p.expiresAt,
      updatedAt: s.clock(),
    });
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
          (row) =>
            (filter.app === undefined || row.app === filter.app) &&
            (filter.externalUserId === undefined || row.externalUserId === filter.externalUserId),
        ),
      );
    },
    async update(workspaceId, id, p) {
      s.open();
      const row = inWorkspace(s.accounts.get(id), workspaceId);
      if (!row) return undefined;
      patch(row, p);
      return copy(row);
    },
    async delete(workspaceId, id) {
      s.open();
      if (!inWorkspace(s.accounts.get(id), workspaceId)) return false;
      s.accountLeases.delete(id);
      return s.accounts.delete(id);
    },
    async listExpiring(before, limit) {
      s.open();
      const due = [...s.accounts.values()].filter(
        (a) => a.oauth && a.status === "active" && a.expiresAt !== undefined && a.expiresAt <= before,
      );
      due.sort((x, y) => (x.expiresAt as number) - (y.expiresAt as number));
      return copy(due.slice(0, limit));
    },
    async claimRefresh(workspaceId, id, owner, leaseMs) {
      s.open();
      const row = inWorkspace(s.accounts.get(id), workspaceId);
      if (!row) return undefined;
      const now = s.clock();
      const lease = s.accountLeases.get(id);
      if (lease && lease.owner !== owner && lease.until > now) return undefined;
      s.accountLeases.set(id, { owner, until: now + leaseMs });
      return copy(row);
    },
    async endRefresh(workspaceId, id, owner, p) {
      s.open();
      const row = inWorkspace(s.accounts.get(id), workspaceId);
      if (!row || s.accountLeases.get(id)?.owner !== owner) return undefined;
      s.accountLeases.delete(id);
      patch(row, p);
      return copy(row);
    },
  };
}
