/**
 * `/v1/accounts`: connected accounts (managed auth); credentials are never returned. Every route
 * takes an API key or an end user's connect token (`ctok_...`), which reaches only that end user's
 * accounts (the engine's accounts API enforces it with the scope given here).
 */
import Type from "typebox";
import { defineRoute } from "../_define.js";
import { accountJson } from "../_json.js";
import { paginate } from "./_paginate.js";
import { AccountData, Deleted, ListParams } from "./_schemas.js";

const ExternalUserId = Type.String({
  minLength: 1,
  maxLength: 250,
  description: "The embedding app's end user (ignored with a connect token: its own end user)",
});

const AppSlug = Type.String({
  pattern: "^[a-z0-9_]+$",
  description: "The app's name slug",
  "x-error": "must be an app's name slug: lowercase letters, digits and _ (such as github)",
});

/** The account routes. */
export const accountRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/accounts",
    tag: "Accounts",
    auth: "connect",
    summary: "Connect an account with keys: `auth` becomes the app's $auth, encrypted at rest",
    params: Type.Object({
      app: AppSlug,
      name: Type.Optional(Type.String({ maxLength: 200 })),
      auth: Type.Record(Type.String(), Type.Unknown(), { description: "Credentials: tokens, API keys" }),
      external_user_id: Type.Optional(ExternalUserId),
    }),
    data: AccountData,
    async handler({ hookline, workspaceId, params, endUser }) {
      const account = await hookline.accounts.create(
        workspaceId,
        {
          app: params.app,
          ...(params.name ? { name: params.name } : {}),
          credentials: params.auth,
          ...(params.external_user_id !== undefined ? { externalUserId: params.external_user_id } : {}),
        },
        endUser,
      );
      return { data: accountJson(account) };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/accounts/connect",
    tag: "Accounts",
    auth: "connect",
    summary:
      "Start connecting an account through OAuth: open `authorize_url` (a popup); the callback stores the account",
    params: Type.Object({
      app: AppSlug,
      name: Type.Optional(Type.String({ maxLength: 200 })),
      external_user_id: Type.Optional(ExternalUserId),
      account_id: Type.Optional(Type.String({ description: "Reconnect this account (keeps its apn_ id)" })),
      return_url: Type.Optional(
        Type.String({ description: "Redirect here when done (this server's origin or an allowed one)" }),
      ),
      opener_origin: Type.Optional(
        Type.String({
          description: "The origin of the window that opened the popup: the result is posted to it",
        }),
      ),
      params: Type.Optional(
        Type.Record(Type.String(), Type.String(), {
          description: "Connect parameters, such as Shopify's shop",
        }),
      ),
    }),
    data: Type.Object({
      authorize_url: Type.String(),
      state: Type.String(),
      expires_at: Type.Integer(),
    }),
    async handler({ hookline, workspaceId, params, endUser }) {
      const started = await hookline.connect.start(
        workspaceId,
        {
          app: params.app,
          ...(params.name !== undefined ? { name: params.name } : {}),
          ...(params.external_user_id !== undefined ? { externalUserId: params.external_user_id } : {}),
          ...(params.account_id !== undefined ? { accountId: params.account_id } : {}),
          ...(params.return_url !== undefined ? { returnUrl: params.return_url } : {}),
          ...(params.opener_origin !== undefined ? { openerOrigin: params.opener_origin } : {}),
          ...(params.params !== undefined ? { params: params.params } : {}),
        },
        endUser,
      );
      return {
        data: {
          authorize_url: started.authorizeUrl,
          state: started.state,
          expires_at: Math.floor(started.expiresAt / 1000),
        },
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/accounts/connect/{state}",
    tag: "Accounts",
    auth: "connect",
    summary: "How a connect flow ended: pending, connected (with the account) or failed (with the error)",
    data: Type.Object({
      status: Type.Union([Type.Literal("pending"), Type.Literal("connected"), Type.Literal("failed")]),
      account: Type.Union([AccountData, Type.Null()]),
      error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
    }),
    async handler({ hookline, workspaceId, path, endUser }) {
      const status = await hookline.connect.status(workspaceId, path.state as string, endUser);
      return {
        data: {
          status: status.status,
          account: status.account ? accountJson(status.account) : null,
          error: status.error ?? null,
        },
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/accounts",
    tag: "Accounts",
    auth: "connect",
    summary: "List connected accounts (a connect token: its end user's only)",
    params: Type.Object({
      app: Type.Optional(Type.String()),
      external_user_id: Type.Optional(ExternalUserId),
      ...ListParams,
    }),
    data: AccountData,
    list: true,
    async handler({ hookline, workspaceId, params, endUser }) {
      const accounts = await hookline.accounts.list(
        workspaceId,
        {
          ...(params.app ? { app: params.app } : {}),
          ...(params.external_user_id !== undefined ? { externalUserId: params.external_user_id } : {}),
        },
        endUser,
      );
      const page = paginate(accounts, (a) => a.id, params);
      return { list: page.list.map(accountJson), pageInfo: page.pageInfo, cursor: page.cursor };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/accounts/{id}",
    tag: "Accounts",
    auth: "connect",
    summary: "Get a connected account (never its credentials)",
    data: AccountData,
    async handler({ hookline, workspaceId, path, endUser }) {
      return { data: accountJson(await hookline.accounts.get(workspaceId, path.id as string, endUser)) };
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/v1/accounts/{id}",
    tag: "Accounts",
    auth: "connect",
    summary: "Rename an account, or set (null: remove) credential fields of its $auth",
    params: Type.Object({
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      auth: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description:
            "Fields to set; null removes one; the others are kept (not an OAuth account's oauth_*)",
        }),
      ),
    }),
    data: AccountData,
    async handler({ hookline, workspaceId, path, params, endUser }) {
      const account = await hookline.accounts.update(
        workspaceId,
        path.id as string,
        {
          ...(params.name !== undefined ? { name: params.name } : {}),
          ...(params.auth !== undefined ? { credentials: params.auth } : {}),
        },
        endUser,
      );
      return { data: accountJson(account) };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/accounts/{id}",
    tag: "Accounts",
    auth: "connect",
    summary: "Delete a connected account (409 account_in_use while a source uses it)",
    data: Deleted,
    async handler({ hookline, workspaceId, path, endUser }) {
      await hookline.accounts.delete(workspaceId, path.id as string, endUser);
      return { data: { deleted: true } };
    },
  }),
];
