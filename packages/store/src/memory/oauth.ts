/** OAuth clients and auth tickets in memory. */
import { type AuthTicketStore, type OAuthClientStore, StoreError } from "../types/index.js";
import { copy } from "./copy.js";
import type { MemoryState } from "./state.js";

/** The OAuth clients of a memory store. */
export function memoryOAuthClients(s: MemoryState): OAuthClientStore {
  const keyOf = (workspaceId: string, app: string) => `${workspaceId}\u0000${app}`;
  return {
    async put(input) {
      s.open();
      const now = s.clock();
      const key = keyOf(input.workspaceId, input.app);
      const row = {
        workspaceId: input.workspaceId,
        app: input.app,
        config: structuredClone(input.config),
        ...(input.clientSecret !== undefined ? { clientSecret: input.clientSecret } : {}),
        createdAt: s.oauthClients.get(key)?.createdAt ?? now,
        updatedAt: now,
      };
      s.oauthClients.set(key, row);
      return copy(row);
    },
    async get(workspaceId, app) {
      s.open();
      return copy(s.oauthClients.get(keyOf(workspaceId, app)));
    },
    async list(workspaceId) {
      s.open();
      return copy(
        [...s.oauthClients.values()]
          .filter((row) => row.workspaceId === workspaceId)
          .sort((a, b) => (a.app < b.app ? -1 : a.app > b.app ? 1 : 0)),
      );
    },
    async delete(workspaceId, app) {
      s.open();
      return s.oauthClients.delete(keyOf(workspaceId, app));
    },
  };
}

/** The auth tickets of a memory store. */
export function memoryAuthTickets(s: MemoryState): AuthTicketStore {
  const keyOf = (kind: string, key: string) => `${kind}\u0000${key}`;
  const live = (kind: string, key: string) => {
    const row = s.authTickets.get(keyOf(kind, key));
    if (row && row.expiresAt <= s.clock()) {
      s.authTickets.delete(keyOf(kind, key));
      return undefined;
    }
    return row;
  };
  return {
    async create(input) {
      s.open();
      const now = s.clock();
      for (const [k, row] of s.authTickets) if (row.expiresAt <= now) s.authTickets.delete(k);
      if (live(input.kind, input.key)) throw new StoreError("conflict", `Auth ticket ${input.kind} exists`);
      const row = { ...input, createdAt: now };
      s.authTickets.set(keyOf(input.kind, input.key), row);
      return copy(row);
    },
    async get(kind, key) {
      s.open();
      return copy(live(kind, key));
    },
    async take(kind, key) {
      s.open();
      const row = live(kind, key);
      if (row) s.authTickets.delete(keyOf(kind, key));
      return copy(row);
    },
  };
}
