/** Workspaces, API keys, connected accounts and store settings: the records of tenants and nodes. */

/** A workspace: the unit of isolation. */
export interface Workspace {
  /** `ws_` id. */
  id: string;
  /** Display name. */
  name: string;
  /** Creation time. */
  createdAt: number;
  /** When it was revoked: its API keys are refused from then on (its records are kept). */
  revokedAt?: number;
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
  /** Marks the workspace revoked; false when not found or already revoked. */
  revoke(id: string): Promise<boolean>;
}

/**
 * What a key may do: `workspace` keys use their workspace's API; `operator` keys may also manage
 * workspaces and API keys (`/v1/workspaces`, `/v1/api_keys`).
 */
export type ApiKeyRole = "workspace" | "operator";

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
  /** What the key may do. */
  role: ApiKeyRole;
  /** Creation time. */
  createdAt: number;
  /** When the key was last used, to the minute or so (see {@link ApiKeyStore.touch}). */
  lastUsedAt?: number;
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
  /** Default `workspace`. */
  role?: ApiKeyRole;
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
  /** A key by id, in any workspace (revoked ones included), or undefined. */
  get(id: string): Promise<ApiKey | undefined>;
  /**
   * Records that the key was used at `at`, unless its `lastUsedAt` is already within `withinMs` of
   * it (so that callers may call it often and the store writes rarely).
   */
  touch(id: string, at: number, withinMs: number): Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Connected accounts
// ---------------------------------------------------------------------------------------------

/** Whether an account's credentials work (`needs_reconnect`: an OAuth refresh was refused). */
export type AccountStatus = "active" | "needs_reconnect";

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
  /** Connected through OAuth (its tokens are refreshed), or typed in (keys). */
  oauth: boolean;
  /** `active`, or `needs_reconnect` once a refresh was refused. */
  status: AccountStatus;
  /** The embedding app's end user who owns it (Connect), when one does. */
  externalUserId?: string;
  /** When its OAuth access token expires, epoch ms (none: it does not, or it is not OAuth). */
  expiresAt?: number;
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
  /** Connected through OAuth (default false). */
  oauth?: boolean;
  /** Default `active`. */
  status?: AccountStatus;
  /** The end user who owns it. */
  externalUserId?: string;
  /** When its access token expires, epoch ms. */
  expiresAt?: number;
}

/** Fields of an account that {@link AccountStore.update} changes. */
export interface AccountPatch {
  /** New display name. */
  name?: string;
  /** New (encrypted) credentials, such as after an OAuth refresh. */
  credentials?: string;
  /** New status. */
  status?: AccountStatus;
  /** New expiry of the access token; `null` removes it. */
  expiresAt?: number | null;
}

/** Connected account records. */
export interface AccountStore {
  /** Stores an account. */
  create(input: CreateAccountInput): Promise<Account>;
  /** The account, or undefined. */
  get(workspaceId: string, id: string): Promise<Account | undefined>;
  /** The workspace's accounts, optionally of one app and of one end user, oldest first. */
  list(workspaceId: string, options?: { app?: string; externalUserId?: string }): Promise<Account[]>;
  /** Updates an account; undefined when not found. */
  update(workspaceId: string, id: string, patch: AccountPatch): Promise<Account | undefined>;
  /** Deletes an account; false when not found. */
  delete(workspaceId: string, id: string): Promise<boolean>;
  /**
   * Active OAuth accounts of every workspace whose access token expires at or before `before`
   * (epoch ms), soonest first, at most `limit`: what a node refreshes ahead of time.
   */
  listExpiring(before: number, limit: number): Promise<Account[]>;
  /**
   * Takes the account's refresh lease for `owner` until `leaseMs` from now (store clock), unless
   * another owner holds an unexpired one: one OAuth refresh at a time across every node sharing the
   * store. Resolves with the account as it is now when taken, undefined when held elsewhere or not
   * found. The same owner taking it again renews it.
   */
  claimRefresh(workspaceId: string, id: string, owner: string, leaseMs: number): Promise<Account | undefined>;
  /**
   * Applies `patch` and releases the refresh lease, only while `owner` still holds it (a lease that
   * expired and was taken by another owner is not overwritten); undefined when it does not.
   */
  endRefresh(
    workspaceId: string,
    id: string,
    owner: string,
    patch: AccountPatch,
  ): Promise<Account | undefined>;
}

/** An OAuth client (the operator's OAuth app) of an app in a workspace. */
export interface OAuthClientRecord {
  /** Owning workspace. */
  workspaceId: string;
  /** The app slug it connects accounts of. */
  app: string;
  /** Its settings (client id, endpoints, scopes...): JSON the engine checks, no secret. */
  config: Record<string, unknown>;
  /** The client secret, already encrypted by the caller (none for public clients). */
  clientSecret?: string;
  /** Creation time. */
  createdAt: number;
  /** Last update time. */
  updatedAt: number;
}

/** Input of {@link OAuthClientStore.put}. */
export interface PutOAuthClientInput {
  workspaceId: string;
  app: string;
  config: Record<string, unknown>;
  /** Encrypted; absent: none. */
  clientSecret?: string;
}

/** OAuth client records, one per app slug and workspace. */
export interface OAuthClientStore {
  /** Creates or replaces the app's client (its `createdAt` kept). */
  put(input: PutOAuthClientInput): Promise<OAuthClientRecord>;
  /** The app's client, or undefined. */
  get(workspaceId: string, app: string): Promise<OAuthClientRecord | undefined>;
  /** The workspace's clients, by app slug. */
  list(workspaceId: string): Promise<OAuthClientRecord[]>;
  /** Deletes the app's client; false when there was none. */
  delete(workspaceId: string, app: string): Promise<boolean>;
}

/**
 * A short-lived secret of managed auth, stored by the hash of what its holder presents: an OAuth
 * `state` (single use), a connect flow's result, a connect token.
 */
export interface AuthTicket {
  /** What it is, such as `oauth_state`. */
  kind: string;
  /** Its key (the hash of the secret). */
  key: string;
  /** Owning workspace. */
  workspaceId: string;
  /** What it carries (text the engine chooses, encrypted where secret). */
  data: string;
  /** When it stops being found, epoch ms. */
  expiresAt: number;
  /** Creation time. */
  createdAt: number;
}

/** Input of {@link AuthTicketStore.create}. */
export type CreateAuthTicketInput = Omit<AuthTicket, "createdAt">;

/** Short-lived secrets of managed auth. An expired ticket is never found, and is deleted in time. */
export interface AuthTicketStore {
  /** Stores a ticket; throws `conflict` when its kind and key are taken. */
  create(input: CreateAuthTicketInput): Promise<AuthTicket>;
  /** The ticket, unless expired. */
  get(kind: string, key: string): Promise<AuthTicket | undefined>;
  /**
   * Deletes the ticket and resolves with it, unless expired: of concurrent takes, exactly one gets
   * it (single use).
   */
  take(kind: string, key: string): Promise<AuthTicket | undefined>;
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
