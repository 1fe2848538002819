/** `/v1/accounts`: connected accounts (managed auth); credentials are never returned. */
import Type from "typebox";
import { defineRoute } from "../_define.js";
import { accountJson } from "../_json.js";
import { paginate } from "./_paginate.js";
import { AccountData, Deleted, ListParams } from "./_schemas.js";

/** The account routes. */
export const accountRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/accounts",
    tag: "Accounts",
    summary: "Connect an account: `auth` becomes the app's $auth, encrypted at rest",
    params: Type.Object({
      app: Type.String({
        pattern: "^[a-z0-9_]+$",
        description: "The app's name slug",
        "x-error": "must be an app's name slug: lowercase letters, digits and _ (such as github)",
      }),
      name: Type.Optional(Type.String({ maxLength: 200 })),
      auth: Type.Record(Type.String(), Type.Unknown(), { description: "Credentials: tokens, API keys" }),
    }),
    data: AccountData,
    async handler({ hookline, workspaceId, params }) {
      const account = await hookline.accounts.create(workspaceId, {
        app: params.app,
        ...(params.name ? { name: params.name } : {}),
        credentials: params.auth,
      });
      return { data: accountJson(account) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/accounts",
    tag: "Accounts",
    summary: "List connected accounts",
    params: Type.Object({ app: Type.Optional(Type.String()), ...ListParams }),
    data: AccountData,
    list: true,
    async handler({ hookline, workspaceId, params }) {
      const accounts = await hookline.accounts.list(workspaceId, params.app ? { app: params.app } : {});
      const page = paginate(accounts, (a) => a.id, params);
      return { list: page.list.map(accountJson), pageInfo: page.pageInfo, cursor: page.cursor };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/accounts/{id}",
    tag: "Accounts",
    summary: "Get a connected account",
    data: AccountData,
    async handler({ hookline, workspaceId, path }) {
      return { data: accountJson(await hookline.accounts.get(workspaceId, path.id as string)) };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/accounts/{id}",
    tag: "Accounts",
    summary: "Delete a connected account (409 account_in_use while a source uses it)",
    data: Deleted,
    async handler({ hookline, workspaceId, path }) {
      await hookline.accounts.delete(workspaceId, path.id as string);
      return { data: { deleted: true } };
    },
  }),
];
