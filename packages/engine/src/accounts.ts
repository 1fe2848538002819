/**
 * Connected accounts (`apn_...`): an app's `$auth` credentials, sealed before they reach the store
 * and never returned; a source's app prop names one by `{ authProvisionId }` or picks its end user's
 * by `{ externalUserId }` (apps.ts). OAuth accounts are connected and refreshed by oauth/.
 *
 * The tenancy rule of Connect lives here: given a {@link AccountScope} (a connect token's end user),
 * every method sees, changes and makes only that end user's accounts.
 */
import { HooklineError } from "@hookline/core";
import type { Account } from "@hookline/store";
import type { EngineContext } from "./context.js";
import { type AccountView, accountView } from "./views.js";

/** An end user's reach (a connect token): only their accounts. */
export interface AccountScope {
  externalUserId: string;
}

/** What {@link AccountsApi.update} changes. */
export interface AccountUpdate {
  /** A new display name. */
  name?: string;
  /**
   * Credential fields to set (`null` removes one); the others are kept. An OAuth account's
   * `oauth_*` and `expires_at` fields are the engine's and cannot be set.
   */
  credentials?: Record<string, unknown>;
}

/** Connected accounts: `hookline.accounts`. */
export interface AccountsApi {
  /**
   * Connects an account: `credentials` become the app's `$auth`, encrypted at rest.
   *
   * @example
   * ```ts
   * const account = await hookline.accounts.create(ws.id, { app: "github", credentials: { oauth_access_token } });
   * await hookline.sources.deploy(ws.id, { code, props: { github: { authProvisionId: account.id } } });
   * ```
   */
  create(
    workspaceId: string,
    input: { app: string; name?: string; credentials: Record<string, unknown>; externalUserId?: string },
    scope?: AccountScope,
  ): Promise<AccountView>;
  /** An account (404 `not_found` when absent, or not the scope's end user's). */
  get(workspaceId: string, id: string, scope?: AccountScope): Promise<AccountView>;
  /** The workspace's accounts, optionally of one app and of one end user. */
  list(
    workspaceId: string,
    filter?: { app?: string; externalUserId?: string },
    scope?: AccountScope,
  ): Promise<AccountView[]>;
  /**
   * Renames an account and sets or removes credential fields (the others kept).
   *
   * @example
   * ```ts
   * await hookline.accounts.update(ws.id, account.id, { name: "ops", credentials: { api_key: "new" } });
   * ```
   */
  update(workspaceId: string, id: string, patch: AccountUpdate, scope?: AccountScope): Promise<AccountView>;
  /** Refused with `account_in_use` (409) while a source's app prop uses the account. */
  delete(workspaceId: string, id: string, scope?: AccountScope): Promise<void>;
}

const slug = /^[a-z0-9_]+$/;

/** Checks an end user id (`external_user_id`). @internal */
export function checkExternalUserId(value: unknown, field = "external_user_id"): string {
  if (typeof value !== "string" || value === "" || value.length > 250) {
    throw new HooklineError("bad_request", `${field} must be a string of 1 to 250 characters`, { field });
  }
  return value;
}

/** The account when it is the workspace's and within the scope. @internal */
export async function scopedAccount(
  ctx: Pick<EngineContext, "store">,
  workspaceId: string,
  id: string,
  scope?: AccountScope,
): Promise<Account> {
  const account = await ctx.store.accounts.get(workspaceId, id);
  if (!account || (scope && account.externalUserId !== scope.externalUserId)) {
    throw new HooklineError("not_found", `No account ${id} in this workspace`);
  }
  return account;
}

/** The sources whose app props name the account by id. */
async function usersOf(ctx: Pick<EngineContext, "store">, account: Account) {
  return (await ctx.store.deployedComponents.list(account.workspaceId)).filter((source) =>
    Object.values(source.props).some(
      (v) => (v as { authProvisionId?: unknown } | null)?.authProvisionId === account.id,
    ),
  );
}

/** The `accounts` API of an engine. @internal */
export function createAccountsApi(ctx: Pick<EngineContext, "store" | "box" | "notify">): AccountsApi {
  const { store } = ctx;
  const changed = (account: Account, change: "connected" | "updated" | "deleted") =>
    ctx.notify("account", {
      workspaceId: account.workspaceId,
      accountId: account.id,
      app: account.app,
      change,
      ...(account.externalUserId !== undefined ? { externalUserId: account.externalUserId } : {}),
    });
  return {
    async create(workspaceId, input, scope) {
      if (typeof input.app !== "string" || !slug.test(input.app)) {
        throw new HooklineError("bad_request", "app must be an app name slug such as github");
      }
      const { credentials } = input;
      if (typeof credentials !== "object" || credentials === null || Array.isArray(credentials)) {
        throw new HooklineError("bad_request", "credentials must be an object (the app's $auth)");
      }
      const owner = scope?.externalUserId ?? input.externalUserId;
      const account = await store.accounts.create({
        workspaceId,
        app: input.app,
        name: input.name ?? input.app,
        credentials: ctx.box.seal(JSON.stringify(credentials)),
        ...(owner !== undefined ? { externalUserId: checkExternalUserId(owner) } : {}),
      });
      changed(account, "connected");
      return accountView(account);
    },
    async get(workspaceId, id, scope) {
      return accountView(await scopedAccount(ctx, workspaceId, id, scope));
    },
    async list(workspaceId, filter = {}, scope) {
      const externalUserId = scope?.externalUserId ?? filter.externalUserId;
      const rows = await store.accounts.list(workspaceId, {
        ...(filter.app !== undefined ? { app: filter.app } : {}),
        ...(externalUserId !== undefined ? { externalUserId } : {}),
      });
      return rows.map(accountView);
    },
    async update(workspaceId, id, patch, scope) {
      const account = await scopedAccount(ctx, workspaceId, id, scope);
      if (patch.name !== undefined && (typeof patch.name !== "string" || patch.name.length > 200)) {
        throw new HooklineError("bad_request", "name must be a string of at most 200 characters");
      }
      let sealed: string | undefined;
      if (patch.credentials !== undefined) {
        const given = patch.credentials;
        if (typeof given !== "object" || given === null || Array.isArray(given)) {
          throw new HooklineError("bad_request", "auth must be an object of credential fields");
        }
        const current = JSON.parse(ctx.box.open(account.credentials)) as Record<string, unknown>;
        for (const [key, value] of Object.entries(given)) {
          if (account.oauth && (key.startsWith("oauth_") || key === "expires_at")) {
            throw new HooklineError(
              "bad_request",
              `auth.${key} of an OAuth account is the engine's: reconnect the account to change it`,
              { field: `auth.${key}` },
            );
          }
          if (value === null) delete current[key];
          else current[key] = value;
        }
        sealed = ctx.box.seal(JSON.stringify(current));
      }
      const updated = await store.accounts.update(workspaceId, id, {
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(sealed !== undefined ? { credentials: sealed } : {}),
      });
      if (!updated) throw new HooklineError("not_found", `No account ${id} in this workspace`);
      changed(updated, "updated");
      return accountView(updated);
    },
    async delete(workspaceId, id, scope) {
      const account = await scopedAccount(ctx, workspaceId, id, scope);
      const users = await usersOf(ctx, account);
      if (users.length > 0) {
        throw new HooklineError(
          "account_in_use",
          `Account ${id} is used by ${users.map((u) => u.slug).join(", ")}: update or delete those sources first`,
          { sources: users.map((u) => u.id) },
        );
      }
      await store.accounts.delete(workspaceId, id);
      changed(account, "deleted");
    },
  };
}
