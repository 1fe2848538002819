/**
 * Workspaces (tenants) and their API keys. Keys are stored hashed (api-keys.ts): the plain key is
 * returned once, at creation.
 */
import { HooklineError } from "@hookline/core";
import type { ApiKey, ApiKeyRole, Store, Workspace } from "@hookline/store";
import { apiKeyHint, generateApiKey, hashApiKey } from "./api-keys.js";

/** Workspaces (tenants): `hookline.workspaces`. */
export interface WorkspacesApi {
  /** Creates a workspace. */
  create(input: { name: string; id?: string }): Promise<Workspace>;
  /** A workspace, or undefined. */
  get(id: string): Promise<Workspace | undefined>;
  /** Every workspace (revoked ones included, with `revokedAt`). */
  list(): Promise<Workspace[]>;
  /**
   * Revokes a workspace: its API keys are refused from the next request on, on every node (its
   * records are kept). False when there was none or it was already revoked.
   */
  revoke(id: string): Promise<boolean>;
}

/** A key and its workspace, as {@link ApiKeysApi.authenticate} finds them. */
export interface Authenticated {
  workspace: Workspace;
  apiKey: ApiKey;
}

/** How often a key's `lastUsedAt` is written, at most: once a minute per key. */
export const LAST_USED_PRECISION_MS = 60_000;

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
  create(
    workspaceId: string,
    input?: { name?: string; role?: ApiKeyRole },
  ): Promise<{ key: string; apiKey: ApiKey }>;
  /** The workspace's keys (hashes and hints only), revoked ones included. */
  list(workspaceId: string): Promise<ApiKey[]>;
  /** Revokes a key; false when there was none. */
  revoke(workspaceId: string, id: string): Promise<boolean>;
  /** A key by id, in any workspace (revoked ones included), or undefined. */
  get(id: string): Promise<ApiKey | undefined>;
  /** The workspace a key belongs to, or undefined for an unknown or revoked key (or workspace). */
  resolve(key: string): Promise<Workspace | undefined>;
  /**
   * The key and its workspace, or undefined for an unknown or revoked key (or workspace). Reads the
   * store every time (a revocation holds on every node at once) and records the key's last use, at
   * most once a minute per key ({@link LAST_USED_PRECISION_MS}).
   *
   * @example
   * ```ts
   * const found = await hookline.apiKeys.authenticate(bearer);
   * if (found?.apiKey.role === "operator") { ... }
   * ```
   */
  authenticate(key: string): Promise<Authenticated | undefined>;
}

/** The `workspaces` API of an engine. @internal */
export function createWorkspacesApi(store: Store): WorkspacesApi {
  return {
    create: (input) => store.workspaces.create(input),
    get: (id) => store.workspaces.get(id),
    list: () => store.workspaces.list(),
    revoke: (id) => store.workspaces.revoke(id),
  };
}

/** The `apiKeys` API of an engine. @internal */
export function createApiKeysApi(store: Store, now: () => number = Date.now): ApiKeysApi {
  // When this node last wrote each key's last use: a write a minute per key, not one per request.
  const touched = new Map<string, number>();
  const touch = (apiKey: ApiKey) => {
    const at = now();
    const last = touched.get(apiKey.id) ?? apiKey.lastUsedAt;
    if (last !== undefined && at - last < LAST_USED_PRECISION_MS) return;
    if (touched.size >= 10_000) touched.clear();
    touched.set(apiKey.id, at);
    // Not awaited: the request does not wait for bookkeeping, and a failed write is retried later.
    store.apiKeys.touch(apiKey.id, at, LAST_USED_PRECISION_MS).catch(() => touched.delete(apiKey.id));
  };
  const authenticate = async (key: string): Promise<Authenticated | undefined> => {
    if (typeof key !== "string" || key === "") return undefined;
    const apiKey = await store.apiKeys.findByHash(hashApiKey(key));
    if (!apiKey) return undefined;
    const workspace = await store.workspaces.get(apiKey.workspaceId);
    if (!workspace || workspace.revokedAt !== undefined) return undefined;
    touch(apiKey);
    return { workspace, apiKey };
  };
  return {
    async create(workspaceId, input = {}) {
      const workspace = await store.workspaces.get(workspaceId);
      if (!workspace) throw new HooklineError("not_found", `No workspace ${workspaceId}`);
      if (workspace.revokedAt !== undefined)
        throw new HooklineError("conflict", `Workspace ${workspaceId} is revoked: it takes no new keys`);
      const key = generateApiKey();
      const apiKey = await store.apiKeys.create({
        workspaceId,
        name: input.name ?? "default",
        hash: hashApiKey(key),
        hint: apiKeyHint(key),
        role: input.role ?? "workspace",
      });
      return { key, apiKey };
    },
    list: (workspaceId) => store.apiKeys.list(workspaceId),
    revoke: (workspaceId, id) => store.apiKeys.revoke(workspaceId, id),
    get: (id) => store.apiKeys.get(id),
    resolve: async (key) => (await authenticate(key))?.workspace,
    authenticate,
  };
}
