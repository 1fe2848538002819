/** Workspaces, API keys, connected accounts and store settings: the records of tenants and nodes. */

/** A workspace: the unit of isolation. */
export interface Workspace {
  /** `ws_` id. */
  id: string;
  /** Display name. */
  name: string;
  /** Creation time. */
  createdAt: number;
}

/** Input of {@link WorkspaceStore.create}. */
export interface CreateWorkspaceInput {
  /** Use this id instead of a new `ws_` id (throws `conflict` if taken). */
  id?: string;
  /** Display name. */
  name: string;
}

/** Workspace records. */
export interface WorkspaceStore {
  /** Creates a workspace; throws a `conflict` {@link StoreError} when `id` is taken. */
  create(input: CreateWorkspaceInput): Promise<Workspace>;
  /** The workspace, or undefined. */
  get(id: string): Promise<Workspace | undefined>;
  /** All workspaces, oldest first. */
  list(): Promise<Workspace[]>;
}

/** An API key. Only the hash of the secret is stored. */
export interface ApiKey {
  /** `key_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** Display name. */
  name: string;
  /** Hash of the secret (how a presented key is found). */
  hash: string;
  /** A short, displayable part of the secret, such as its last four characters. */
  hint: string;
  /** Creation time. */
  createdAt: number;
  /** When the key was revoked; revoked keys are not found by {@link ApiKeyStore.findByHash}. */
  revokedAt?: number;
}

/** Input of {@link ApiKeyStore.create}. */
export interface CreateApiKeyInput {
  /** Owning workspace. */
  workspaceId: string;
  /** Display name. */
  name: string;
  /** Hash of the secret. */
  hash: string;
  /** A short, displayable part of the secret. */
  hint: string;
}

/** API key records. */
export interface ApiKeyStore {
  /** Stores a key; throws `conflict` when the hash is already stored. */
  create(input: CreateApiKeyInput): Promise<ApiKey>;
  /** Resolves a presented key by its hash (any workspace); revoked keys are not found. */
  findByHash(hash: string): Promise<ApiKey | undefined>;
  /** The workspace's keys (revoked ones included, with `revokedAt`), oldest first. */
  list(workspaceId: string): Promise<ApiKey[]>;
  /** Revokes a key; false when not found in the workspace or already revoked. */
  revoke(workspaceId: string, id: string): Promise<boolean>;
}

// ---------------------------------------------------------------------------------------------
// Connected accounts
// ---------------------------------------------------------------------------------------------

/** A connected account (credentials of an app), used by `app` props. */
export interface Account {
  /** `apn_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The app slug, such as `github`. */
  app: string;
  /** Display name. */
  name: string;
  /** The credentials, already encrypted by the caller. */
  credentials: string;
  /** Creation time. */
  createdAt: number;
  /** Last update time. */
  updatedAt: number;
}

/** Input of {@link AccountStore.create}. */
export interface CreateAccountInput {
  /** Owning workspace. */
  workspaceId: string;
  /** The app slug. */
  app: string;
  /** Display name. */
  name: string;
  /** The credentials, already encrypted. */
  credentials: string;
}

/** Fields of an account that {@link AccountStore.update} changes. */
export interface AccountPatch {
  /** New display name. */
  name?: string;
  /** New (encrypted) credentials, such as after an OAuth refresh. */
  credentials?: string;
}

/** Connected account records. */
export interface AccountStore {
  /** Stores an account. */
  create(input: CreateAccountInput): Promise<Account>;
  /** The account, or undefined. */
  get(workspaceId: string, id: string): Promise<Account | undefined>;
  /** The workspace's accounts, optionally of one app, oldest first. */
  list(workspaceId: string, options?: { app?: string }): Promise<Account[]>;
  /** Updates an account; undefined when not found. */
  update(workspaceId: string, id: string, patch: AccountPatch): Promise<Account | undefined>;
  /** Deletes an account; false when not found. */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/**
 * Small settings records shared by every node using the store, such as the check value of the
 * secrets key. Keys and values are strings.
 */
export interface SettingsStore {
  /** The value, or undefined when the key was never set. */
  get(key: string): Promise<string | undefined>;
  /**
   * Sets `key` to `value` unless it already has a value, atomically (two nodes starting at once
   * agree on one value); returns the value the key holds afterwards.
   */
  setIfAbsent(key: string, value: string): Promise<string>;
}
