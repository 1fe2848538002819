/** API keys in memory. */
import { newApiKey } from "../adapter/rows.js";
import { type ApiKeyStore, StoreError } from "../types/index.js";
import { copy } from "./copy.js";
import { byWorkspace, inWorkspace, type MemoryState } from "./state.js";

/** The API keys of a memory store. */
export function memoryApiKeys(s: MemoryState): ApiKeyStore {
  return {
    async create(input) {
      s.open();
      for (const key of s.apiKeys.values()) {
        if (key.hash === input.hash) throw new StoreError("conflict", "An API key with this hash exists");
      }
      const row = newApiKey(input, s.clock());
      s.apiKeys.set(row.id, row);
      return copy(row);
    },
    async findByHash(hash) {
      s.open();
      for (const key of s.apiKeys.values()) {
        if (key.hash === hash && key.revokedAt === undefined) return copy(key);
      }
      return undefined;
    },
    async list(workspaceId) {
      s.open();
      return copy(byWorkspace(s.apiKeys, workspaceId));
    },
    async revoke(workspaceId, id) {
      s.open();
      const key = inWorkspace(s.apiKeys.get(id), workspaceId);
      if (!key || key.revokedAt !== undefined) return false;
      key.revokedAt = s.clock();
      return true;
    },
    async get(id) {
      s.open();
      return copy(s.apiKeys.get(id));
    },
    async touch(id, at, withinMs) {
      s.open();
      const key = s.apiKeys.get(id);
      if (key && (key.lastUsedAt === undefined || key.lastUsedAt < at - withinMs)) key.lastUsedAt = at;
    },
  };
}
