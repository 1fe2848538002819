/**
 * Apps and managed auth: which app props need a connected account, the check of the account an
 * app prop names, and the `$auth` the sandbox gets from it.
 */
import { HooklineError, type PropDescription } from "@hookline/core";
import type { Account, Store } from "@hookline/store";
import type { SecretBox } from "./secrets.js";

/** Where the engine's notes about an account (refreshed, needs reconnect) go for the run that needed it. */
export type AuthLog = (level: "info" | "warn" | "error", message: string) => void;

/** The stored value of an app prop: a fixed account, or the end user's account of the app. */
export type AppPropValue = { authProvisionId: string } | { externalUserId: string };

/**
 * Apps that need no credentials, like Pipedream's `http` app: an app prop of one of these needs no
 * connected account (its `$auth` is `{}` unless an account is given anyway). Replace the list with
 * the `noAuthApps` option of `createHookline`.
 */
export const DEFAULT_NO_AUTH_APPS: readonly string[] = [
  "http",
  "helper_functions",
  "pipedream_utils",
  "rss",
  "schedule",
  "email",
  "sse",
  "data_stores",
  "formatting",
];

/** What the app-prop helpers need from the engine. @internal */
export interface AppsContext {
  store: Store;
  box: SecretBox;
  noAuthApps: ReadonlySet<string>;
  /** An account's `$auth`: its credentials opened, OAuth tokens refreshed first when due. */
  credentials(account: Account, log?: AuthLog): Promise<Record<string, unknown>>;
  /** Whether an account's OAuth token is due for a refresh now (a cached sandbox is then rebuilt). */
  authDue(account: Pick<Account, "oauth" | "expiresAt" | "status">): boolean;
}

/** The app name slug of an app prop (its `app` field; the prop name when absent). */
function appOf(name: string, prop: PropDescription): string {
  return typeof prop.app === "string" ? prop.app : name;
}

/**
 * Checks the configured values of a component's app props and returns their stored form
 * (`{ authProvisionId }` or `{ externalUserId }`, never the credentials). A required app prop of an
 * app that needs credentials without a value is `account_required`; a value of another shape, an
 * account that is not this workspace's or is of another app, or an end user without an account of
 * the app is `invalid_account`. Both name the prop in the message and in `details.prop`. @internal
 */
export async function checkAppProps(
  ctx: Pick<AppsContext, "store" | "noAuthApps">,
  workspaceId: string,
  props: Record<string, PropDescription>,
  values: Record<string, unknown>,
): Promise<Record<string, AppPropValue>> {
  const out: Record<string, AppPropValue> = {};
  for (const [name, prop] of Object.entries(props)) {
    if (prop.type !== "app") continue;
    const app = appOf(name, prop);
    const value = values[name];
    if (value === undefined || value === null || value === "") {
      if (prop.optional === true || ctx.noAuthApps.has(app)) continue;
      throw new HooklineError(
        "account_required",
        `The app prop "${name}" needs a connected ${app} account: configure it as { "authProvisionId": "apn_..." } or { "externalUserId": "..." } (connect one with POST /v1/accounts/connect or POST /v1/accounts)`,
        { prop: name, app },
      );
    }
    const endUser =
      typeof value === "object" ? (value as { externalUserId?: unknown }).externalUserId : undefined;
    if (endUser !== undefined) {
      if (typeof endUser !== "string" || endUser === "") {
        throw new HooklineError(
          "invalid_account",
          `The app prop "${name}" takes { "externalUserId": "<end user id>" }`,
          {
            prop: name,
            app,
          },
        );
      }
      if ((await ctx.store.accounts.list(workspaceId, { app, externalUserId: endUser })).length === 0) {
        throw new HooklineError(
          "invalid_account",
          `The app prop "${name}" names end user ${endUser}, who has no connected ${app} account in this workspace`,
          { prop: name, app, external_user_id: endUser },
        );
      }
      out[name] = { externalUserId: endUser };
      continue;
    }
    const id = typeof value === "object" ? (value as { authProvisionId?: unknown }).authProvisionId : value;
    if (typeof id !== "string" || id === "") {
      throw new HooklineError(
        "invalid_account",
        `The app prop "${name}" takes { "authProvisionId": "apn_..." } or { "externalUserId": "..." }, got ${JSON.stringify(value)}`,
        { prop: name, app },
      );
    }
    const account = await ctx.store.accounts.get(workspaceId, id);
    if (!account) {
      throw new HooklineError(
        "invalid_account",
        `The app prop "${name}" names account ${id}, which does not exist in this workspace`,
        { prop: name, app, account: id },
      );
    }
    if (account.app !== app) {
      throw new HooklineError(
        "invalid_account",
        `The app prop "${name}" needs a ${app} account; ${id} is a ${account.app} account`,
        { prop: name, app, account: id },
      );
    }
    out[name] = { authProvisionId: id };
  }
  return out;
}

/**
 * The account an app prop's value names: by id, or the end user's newest active account of the app
 * (their newest one when none is active). Undefined when there is none, or it is of another app.
 * @internal
 */
export async function accountOfProp(
  ctx: Pick<AppsContext, "store">,
  workspaceId: string,
  name: string,
  prop: PropDescription,
  value: unknown,
): Promise<Account | undefined> {
  const app = appOf(name, prop);
  const endUser =
    value && typeof value === "object" ? (value as { externalUserId?: unknown }).externalUserId : undefined;
  if (typeof endUser === "string") {
    const owned = await ctx.store.accounts.list(workspaceId, { app, externalUserId: endUser });
    return owned.filter((a) => a.status === "active").at(-1) ?? owned.at(-1);
  }
  const id =
    value && typeof value === "object" ? (value as { authProvisionId?: unknown }).authProvisionId : value;
  if (typeof id !== "string" || id === "") return undefined;
  const account = await ctx.store.accounts.get(workspaceId, id);
  return account && account.app === app ? account : undefined;
}

/**
 * The `$auth` of an app prop's value: the account's credentials, decrypted (OAuth tokens refreshed
 * first when due; what happened goes to `log`). `{}` when the prop has no account (an app that
 * needs none), or names one that is gone or belongs to another app (values being configured are not
 * checked yet). `used`, when given, collects the account. @internal
 */
export async function openAuth(
  ctx: AppsContext,
  workspaceId: string,
  name: string,
  prop: PropDescription,
  value: unknown,
  options: { log?: AuthLog; used?: Account[] } = {},
): Promise<Record<string, unknown>> {
  const account = await accountOfProp(ctx, workspaceId, name, prop, value);
  if (!account) return {};
  options.used?.push(account);
  return ctx.credentials(account, options.log);
}
