/**
 * `/v1/workspaces` and `/v1/api_keys`: the operator's routes (an operator key only; a workspace key
 * is `403 operator_key_required`). Keys are shown by their prefix; the key itself only once, in
 * the answer that creates it.
 */
import { HooklineError } from "@hookline/core";
import type { ApiKey, Workspace } from "@hookline/store";
import Type from "typebox";
import { defineRoute, type RouteContext } from "../_define.js";
import { paginate } from "./_paginate.js";
import { ListParams } from "./_schemas.js";

const seconds = (ms: number | undefined) => (ms === undefined ? null : Math.floor(ms / 1000));
const Seconds = (description: string) => Type.Union([Type.Integer(), Type.Null()], { description });

const WorkspaceData = Type.Object({
  id: Type.String(),
  name: Type.String(),
  created_at: Type.Integer(),
  revoked_at: Seconds("When it was revoked (its keys are refused since), epoch seconds"),
});

const ApiKeyData = Type.Object({
  id: Type.String({ pattern: "^key_" }),
  workspace_id: Type.String(),
  name: Type.String(),
  prefix: Type.String({ description: "The first characters of the key, to tell keys apart" }),
  role: Type.Union([Type.Literal("workspace"), Type.Literal("operator")]),
  created_at: Type.Integer(),
  last_used_at: Seconds("Last use, to the minute, epoch seconds; null when never used"),
  revoked_at: Seconds("When it was revoked, epoch seconds"),
  key: Type.Optional(Type.String({ description: "The key itself: in the answer that creates it only" })),
});

const Role = Type.Union([Type.Literal("workspace"), Type.Literal("operator")], {
  description: "`operator` keys may also manage workspaces and keys (default `workspace`)",
});

/** A workspace as the API shows it. */
function workspaceJson(w: Workspace) {
  return { id: w.id, name: w.name, created_at: seconds(w.createdAt), revoked_at: seconds(w.revokedAt) };
}

/** An API key as the API shows it (never its hash). */
function apiKeyJson(k: ApiKey) {
  return {
    id: k.id,
    workspace_id: k.workspaceId,
    name: k.name,
    prefix: k.hint.replace(/…$/, ""),
    role: k.role,
    created_at: seconds(k.createdAt),
    last_used_at: seconds(k.lastUsedAt),
    revoked_at: seconds(k.revokedAt),
  };
}

async function workspaceOf(ctx: RouteContext, id: string): Promise<Workspace> {
  const workspace = await ctx.hookline.workspaces.get(id);
  if (!workspace) throw new HooklineError("not_found", `No workspace ${id}`);
  return workspace;
}

/** The workspace and API key routes. */
export const tenantRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/workspaces",
    tag: "Workspaces",
    summary: "Create a workspace (a tenant); then give it a key with POST /v1/api_keys",
    auth: "operator",
    params: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) }),
    data: WorkspaceData,
    async handler({ hookline, params }) {
      return { data: workspaceJson(await hookline.workspaces.create({ name: params.name })) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/workspaces",
    tag: "Workspaces",
    summary: "List workspaces (revoked ones included)",
    auth: "operator",
    params: Type.Object(ListParams),
    data: WorkspaceData,
    list: true,
    async handler({ hookline, params }) {
      const page = paginate(await hookline.workspaces.list(), (w) => w.id, params);
      return { list: page.list.map(workspaceJson), pageInfo: page.pageInfo, cursor: page.cursor };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/workspaces/{id}",
    tag: "Workspaces",
    summary: "Get a workspace",
    auth: "operator",
    data: WorkspaceData,
    async handler(ctx) {
      return { data: workspaceJson(await workspaceOf(ctx, ctx.path.id as string)) };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/workspaces/{id}",
    tag: "Workspaces",
    summary: "Revoke a workspace: its keys are refused at once, on every node (its records are kept)",
    auth: "operator",
    data: WorkspaceData,
    async handler(ctx) {
      const id = ctx.path.id as string;
      await workspaceOf(ctx, id);
      if (id === ctx.workspaceId) {
        throw new HooklineError("conflict", "The workspace of the key making the request cannot be revoked");
      }
      await ctx.hookline.workspaces.revoke(id);
      return { data: workspaceJson(await workspaceOf(ctx, id)) };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/api_keys",
    tag: "Workspaces",
    summary: "Create an API key; the answer holds the key itself, shown this once",
    auth: "operator",
    params: Type.Object({
      workspace_id: Type.Optional(
        Type.String({ description: "Default: the workspace of the key making the request" }),
      ),
      name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
      role: Type.Optional(Role),
    }),
    data: ApiKeyData,
    async handler(ctx) {
      const { workspace_id: workspaceId = ctx.workspaceId, name, role } = ctx.params;
      await workspaceOf(ctx, workspaceId);
      const made = await ctx.hookline.apiKeys.create(workspaceId, {
        ...(name === undefined ? {} : { name }),
        ...(role === undefined ? {} : { role }),
      });
      return { data: { ...apiKeyJson(made.apiKey), key: made.key } };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/api_keys",
    tag: "Workspaces",
    summary: "List a workspace's API keys (revoked ones included), by prefix",
    auth: "operator",
    params: Type.Object({
      workspace_id: Type.Optional(
        Type.String({ description: "Default: the workspace of the key making the request" }),
      ),
      ...ListParams,
    }),
    data: ApiKeyData,
    list: true,
    async handler(ctx) {
      const workspaceId = (ctx.params.workspace_id as string | undefined) ?? ctx.workspaceId;
      await workspaceOf(ctx, workspaceId);
      const page = paginate(await ctx.hookline.apiKeys.list(workspaceId), (k) => k.id, ctx.params);
      return { list: page.list.map(apiKeyJson), pageInfo: page.pageInfo, cursor: page.cursor };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/api_keys/{id}",
    tag: "Workspaces",
    summary: "Revoke an API key of any workspace: it is refused at once, on every node",
    auth: "operator",
    data: ApiKeyData,
    async handler(ctx) {
      const id = ctx.path.id as string;
      const key = await ctx.hookline.apiKeys.get(id);
      if (!key) throw new HooklineError("not_found", `No API key ${id}`);
      if (key.id === ctx.apiKey?.id) {
        throw new HooklineError(
          "conflict",
          "A key cannot revoke itself: revoke it with another operator key (POST /v1/api_keys makes one)",
        );
      }
      await ctx.hookline.apiKeys.revoke(key.workspaceId, id);
      return { data: apiKeyJson((await ctx.hookline.apiKeys.get(id)) ?? key) };
    },
  }),
];
