/**
 * Apps and managed auth: which app props need a connected account, the check of the account an
 * app prop names, and the `$auth` the sandbox gets from it.
 */
import { HooklineError, type PropDescription } from "@hookline/core";
import type { Store } from "@hookline/store";
import type { SecretBox } from "./secrets.js";

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
}

/** The app name slug of an app prop (its `app` field; the prop name when absent). */
function appOf(name: string, prop: PropDescription): string {
  return typeof prop.app === "string" ? prop.app : name;
}

/**
 * Checks the configured values of a component's app props and returns their stored form
 * (`{ authProvisionId }`, never the credentials). A required app prop of an app that needs
 * credentials without a value is `account_required`; a value that is not `{ authProvisionId }`,
 * names no account of this workspace, or an account of another app is `invalid_account`. Both
 * name the prop in the message and in `details.prop`. @internal
 */
export async function checkAppProps(
  ctx: AppsContext,
  workspaceId: string,
  props: Record<string, PropDescription>,
  values: Record<string, unknown>,
): Promise<Record<string, { authProvisionId: string }>> {
  const out: Record<string, { authProvisionId: string }> = {};
  for (const [name, prop] of Object.entries(props)) {
    if (prop.type !== "app") continue;
    const app = appOf(name, prop);
    const value = values[name];
    if (value === undefined || value === null || value === "") {
      if (prop.optional === true || ctx.noAuthApps.has(app)) continue;
      throw new HooklineError(
        "account_required",
        `The app prop "${name}" needs a connected ${app} account: configure it as { "authProvisionId": "apn_..." } (connect one with accounts.create or POST /v1/accounts)`,
        { prop: name, app },
      );
    }
    const id = typeof value === "object" ? (value as { authProvisionId?: unknown }).authProvisionId : value;
    if (typeof id !== "string" || id === "") {
      throw new HooklineError(
        "invalid_account",
        `The app prop "${name}" takes { "authProvisionId": "apn_..." }, got ${JSON.stringify(value)}`,
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
 * The `$auth` of an app prop's value: the account's credentials, decrypted. `{}` when the prop has
 * no account (an app that needs none), or names one that is gone or belongs to another app (values
 * being configured are not checked yet). @internal
 */
export async function openAuth(
  ctx: AppsContext,
  workspaceId: string,
  name: string,
  prop: PropDescription,
  value: unknown,
): Promise<Record<string, unknown>> {
  const id =
    value && typeof value === "object" ? (value as { authProvisionId?: unknown }).authProvisionId : value;
  if (typeof id !== "string" || id === "") return {};
  const account = await ctx.store.accounts.get(workspaceId, id);
  if (!account || account.app !== appOf(name, prop)) return {};
  return JSON.parse(ctx.box.open(account.credentials)) as Record<string, unknown>;
}
