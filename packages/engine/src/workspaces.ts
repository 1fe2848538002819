/**
 * Workspaces (tenants) and their API keys. Keys are stored hashed (api-keys.ts): the plain key is
 * returned once, at creation.
 */
import { HooklineError } from "@hookline/core";
import type { ApiKey, Store, Workspace } from "@hookline/store";
import { apiKeyHint, generateApiKey, hashApiKey } from "./api-keys.js";

/** Workspaces (tenants): `hookline.workspaces`. */
export interface WorkspacesApi {
  /** Creates a workspace. */
  create(input: { name: string; id?: string }): Promise<Workspace>;
  /** A workspace, or undefined. */
  get(id: string): Promise<Workspace | undefined>;
  /** Every workspace. */
  list(): Promise<Workspace[]>;
}

/** API keys, stored hashed: `hookline.apiKeys`. */
export interface ApiKeysApi {
  /**
   * Creates a key; the plain key is in the result only this once.
   *
   * @example
   * ```ts
   * const { key } = await hookline.apiKeys.create(ws.id, { name: "ci" }); // "hl_..."
   * ```
   */
  create(workspaceId: string, input?: { name?: string }): Promise<{ key: string; apiKey: ApiKey }>;
  /** The workspace's keys (hashes and hints only), revoked ones included. */
  list(workspaceId: string): Promise<ApiKey[]>;
  /** Revokes a key; false when there was none. */
  revoke(workspaceId: string, id: string): Promise<boolean>;
  /** The workspace a key belongs to, or undefined for an unknown or revoked key. */
  resolve(key: string): Promise<Workspace | undefined>;
}

/** The `workspaces` API of an engine. @internal */
export function createWorkspacesApi(store: Store): WorkspacesApi {
  return {
    create: (input) => store.workspaces.create(input),
    get: (id) => store.workspaces.get(id),
    list: () => store.workspaces.list(),
  };
}

/** The `apiKeys` API of an engine. @internal */
export function createApiKeysApi(store: Store): ApiKeysApi {
  return {
    async create(workspaceId, input = {}) {
      if (!(await store.workspaces.get(workspaceId)))
        throw new HooklineError("not_found", `No workspace ${workspaceId}`);
      const key = generateApiKey();
      const apiKey = await store.apiKeys.create({
        workspaceId,
        name: input.name ?? "default",
        hash: hashApiKey(key),
        hint: apiKeyHint(key),
      });
      return { key, apiKey };
    },
    list: (workspaceId) => store.apiKeys.list(workspaceId),
    revoke: (workspaceId, id) => store.apiKeys.revoke(workspaceId, id),
    async resolve(key) {
      if (typeof key !== "string" || key === "") return undefined;
      const found = await store.apiKeys.findByHash(hashApiKey(key));
      return found ? store.workspaces.get(found.workspaceId) : undefined;
    },
  };
}
