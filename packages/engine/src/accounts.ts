/**
 * Connected accounts (`apn_...`): an app's `$auth` credentials, sealed before they reach the store
 * and never returned; a source's app prop names one by `{ authProvisionId }` (apps.ts).
 */
import { HooklineError } from "@hookline/core";
import type { EngineContext } from "./context.js";
import { type AccountView, accountView } from "./views.js";

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
    input: { app: string; name?: string; credentials: Record<string, unknown> },
  ): Promise<AccountView>;
  /** An account (404 `not_found` when absent). */
  get(workspaceId: string, id: string): Promise<AccountView>;
  /** The workspace's accounts, optionally of one app. */
  list(workspaceId: string, filter?: { app?: string }): Promise<AccountView[]>;
  /** Refused with `account_in_use` (409) while a source's app prop uses the account. */
  delete(workspaceId: string, id: string): Promise<void>;
  /**
   * Whether an app prop of `app` needs a connected account: false for the apps of the
   * `noAuthApps` option (`http`, `rss`, `schedule`...), which deploy without one.
   *
   * @example
   * ```ts
   * hookline.accounts.needsAccount("rss"); // false
   * hookline.accounts.needsAccount("github"); // true
   * ```
   */
  needsAccount(app: string): boolean;
}

/** The `accounts` API of an engine. @internal */
export function createAccountsApi(ctx: Pick<EngineContext, "store" | "box" | "apps">): AccountsApi {
  const { store } = ctx;
  const notFound = (id: string) => new HooklineError("not_found", `No account ${id} in this workspace`);
  return {
    async create(workspaceId, input) {
      if (typeof input.app !== "string" || !/^[a-z0-9_]+$/.test(input.app)) {
        throw new HooklineError("bad_request", "app must be an app name slug such as github");
      }
      const { credentials } = input;
      if (typeof credentials !== "object" || credentials === null || Array.isArray(credentials)) {
        throw new HooklineError("bad_request", "credentials must be an object (the app's $auth)");
      }
      const account = await store.accounts.create({
        workspaceId,
        app: input.app,
        name: input.name ?? input.app,
        credentials: ctx.box.seal(JSON.stringify(credentials)),
      });
      return accountView(account);
    },
    async get(workspaceId, id) {
      const account = await store.accounts.get(workspaceId, id);
      if (!account) throw notFound(id);
      return accountView(account);
    },
    async list(workspaceId, filter) {
      return (await store.accounts.list(workspaceId, filter)).map(accountView);
    },
    async delete(workspaceId, id) {
      if (!(await store.accounts.get(workspaceId, id))) throw notFound(id);
      const users = (await store.deployedComponents.list(workspaceId)).filter((source) =>
        Object.values(source.props).some(
          (v) => (v as { authProvisionId?: unknown } | null)?.authProvisionId === id,
        ),
      );
      if (users.length > 0) {
        throw new HooklineError(
          "account_in_use",
          `Account ${id} is used by ${users.map((u) => u.slug).join(", ")}: update or delete those sources first`,
          { sources: users.map((u) => u.id) },
        );
      }
      await store.accounts.delete(workspaceId, id);
    },
    needsAccount: (app) => !ctx.apps.noAuthApps.has(app),
  };
}
