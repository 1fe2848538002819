/** `/v1/sources`: deploy, read, update, delete and run sources; their events and logs. */
import { EventSummarySchema, eventSummary, HooklineError } from "@hookline/core";
import Type, { type Static } from "typebox";
import { defineRoute, type RouteContext } from "../_define.js";
import { logJson, sourceJson } from "../_json.js";
import { EventSummaryParams, eventSearchOf, eventSummaryList } from "./_event-summaries.js";
import { paginate } from "./_paginate.js";
import { ListParams, LogData, SeqCursor, SourceData } from "./_schemas.js";
import { CodeParams, codeFrom } from "./components.js";

const ConfiguredProps = Type.Optional(
  Type.Record(Type.String(), Type.Unknown(), { description: "Prop values by prop name" }),
);

/** A published component to deploy by key. */
const KeyParams = {
  component_key: Type.Optional(
    Type.String({
      minLength: 1,
      description: "A registry key: the newest visible version, or pinned as key@1.2.3",
    }),
  ),
  component_version: Type.Optional(
    Type.String({ minLength: 1, description: "The version of component_key (default: the newest)" }),
  ),
};

type ComponentParams = {
  component_id?: string;
  component_key?: string;
  component_version?: string;
  component_code?: string;
  component_url?: string;
  filename?: string;
};

/** The code of the request (fetched for `component_url`); at most one way to name the component. */
async function componentFrom(ctx: RouteContext<ComponentParams>) {
  const { params } = ctx;
  const given = [
    params.component_id !== undefined && "component_id",
    params.component_key !== undefined && "component_key",
    params.component_code !== undefined && "component_code",
    params.component_url !== undefined && "component_url",
  ].filter(Boolean);
  if (given.length > 1) {
    throw new HooklineError("conflicting_parameter", `give one of ${given.join(", ")}, not several`);
  }
  if (params.component_version !== undefined && params.component_key === undefined) {
    throw new HooklineError("bad_request", "component_version needs component_key");
  }
  return codeFrom(ctx);
}

/** What `POST /v1/sources` (deploy) and `PUT /v1/sources/{id}` (update) take. */
const SourceParams = Type.Object({
  component_id: Type.Optional(Type.String()),
  ...KeyParams,
  ...CodeParams,
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  configured_props: ConfiguredProps,
  active: Type.Optional(Type.Boolean()),
});

/** The engine's deploy or update input of a request: the component (code, id or key), name, props, active. */
function sourceInput(code: Awaited<ReturnType<typeof componentFrom>>, params: Static<typeof SourceParams>) {
  return {
    ...(code ? { code } : {}),
    ...(params.component_id ? { componentId: params.component_id } : {}),
    ...(params.component_key ? { componentKey: params.component_key } : {}),
    ...(params.component_version ? { componentVersion: params.component_version } : {}),
    ...(params.name ? { name: params.name } : {}),
    ...(params.configured_props ? { props: params.configured_props } : {}),
    ...(params.active !== undefined ? { active: params.active } : {}),
  };
}

/** The source routes. */
export const sourceRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/sources",
    tag: "Sources",
    summary: "Deploy a source from a saved component, a registry key, code or a URL",
    params: SourceParams,
    data: SourceData,
    warnings: true,
    async handler(ctx) {
      const { params } = ctx;
      const code = await componentFrom(ctx);
      if (!code && !params.component_id && !params.component_key) {
        throw new HooklineError(
          "bad_request",
          "component_id, component_key, component_code or component_url is required",
        );
      }
      const source = await ctx.hookline.sources.deploy(ctx.workspaceId, sourceInput(code, params));
      return { data: sourceJson(source), warnings: source.description.warnings ?? [] };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/sources",
    tag: "Sources",
    summary: "List sources",
    params: Type.Object(ListParams),
    data: SourceData,
    list: true,
    async handler({ hookline, workspaceId, params }) {
      const page = paginate(await hookline.sources.list(workspaceId), (s) => s.id, params);
      return { list: page.list.map(sourceJson), pageInfo: page.pageInfo, cursor: page.cursor };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/sources/{id}",
    tag: "Sources",
    summary: "Get a source (by id or name slug)",
    data: SourceData,
    async handler({ hookline, workspaceId, path }) {
      return { data: sourceJson(await hookline.sources.get(workspaceId, path.id as string)) };
    },
  }),
  defineRoute({
    method: "PUT",
    path: "/v1/sources/{id}",
    tag: "Sources",
    summary: "Update a source: new code or component (id or registry key), props, name, active",
    params: SourceParams,
    data: SourceData,
    warnings: true,
    async handler(ctx) {
      const { params } = ctx;
      const code = await componentFrom(ctx);
      const source = await ctx.hookline.sources.update(
        ctx.workspaceId,
        ctx.path.id as string,
        sourceInput(code, params),
      );
      return { data: sourceJson(source), warnings: source.description.warnings ?? [] };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/sources/{id}",
    tag: "Sources",
    summary: "Delete a source (deactivate() runs first)",
    data: Type.Object({ deleted: Type.Literal(true), warnings: Type.Array(Type.String()) }),
    async handler({ hookline, workspaceId, path }) {
      const { warnings } = await hookline.sources.delete(workspaceId, path.id as string);
      return { data: { deleted: true, warnings } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/sources/{id}/run",
    tag: "Sources",
    summary: "Run a source now",
    params: Type.Object({ event: Type.Optional(Type.Unknown()) }),
    data: Type.Object({
      emitted: Type.Array(EventSummarySchema),
      error: Type.Union([Type.Unknown(), Type.Null()]),
      duration_ms: Type.Number(),
    }),
    async handler({ hookline, workspaceId, path, params }) {
      const run = await hookline.sources.run(workspaceId, path.id as string, params.event);
      return {
        data: {
          emitted: run.emitted.map((e) => eventSummary(e, true)),
          error: run.error ?? null,
          duration_ms: run.durationMs,
        },
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/sources/{id}/event_summaries",
    tag: "Events",
    summary: "The source's events, newest first",
    params: EventSummaryParams,
    data: EventSummarySchema,
    list: true,
    async handler({ hookline, workspaceId, path, params }) {
      const page = await hookline.sources.events(workspaceId, path.id as string, eventSearchOf(params));
      return eventSummaryList(page, params);
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/v1/sources/{id}/events",
    tag: "Events",
    summary: "Delete the source's events (all, or the given ids)",
    params: Type.Object({ ids: Type.Optional(Type.Array(Type.String())) }),
    data: Type.Object({ deleted: Type.Integer() }),
    async handler({ hookline, workspaceId, path, params }) {
      return {
        data: { deleted: await hookline.sources.deleteEvents(workspaceId, path.id as string, params.ids) },
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/sources/{id}/logs",
    tag: "Logs",
    summary: "The source's log lines, oldest first",
    params: Type.Object({ ...ListParams, after: SeqCursor }),
    data: LogData,
    list: true,
    async handler({ hookline, workspaceId, path, params }) {
      const page = await hookline.sources.logs(workspaceId, path.id as string, {
        limit: params.limit ?? 100,
        ...(params.after ? { after: params.after } : {}),
      });
      const list = page.items.map(logJson);
      return {
        list,
        cursor: (index) => String(list[index]?.seq),
        pageInfo: {
          count: list.length,
          start_cursor: list[0] ? String(list[0].seq) : null,
          end_cursor: page.nextCursor ?? null,
        },
      };
    },
  }),
];
