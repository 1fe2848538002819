/**
 * `/v1/components`: save code, read saved components (by id or key), the component registry
 * (publish, list, read by key), async options and dynamic props.
 */
import { HooklineError, type PropDescription } from "@hookline/core";
import { type ComponentView, componentApp } from "@hookline/engine";
import Type from "typebox";
import { defineRoute, type RouteContext } from "../_define.js";
import { componentJson } from "../_json.js";
import { paginate } from "./_paginate.js";
import { ComponentData, ListParams } from "./_schemas.js";

/** Code given inline (`component_code`, with an optional file name) or by URL. */
export const CodeParams = {
  component_code: Type.Optional(Type.String({ description: "The component's code (one file)" })),
  component_url: Type.Optional(Type.String({ description: "Where to fetch the code (SSRF-guarded)" })),
  filename: Type.Optional(
    Type.String({ description: "File name; its extension picks .js, .mjs, .cjs or .ts" }),
  ),
};

/**
 * The code input of a request, fetching `component_url` (with the relative files it imports)
 * through the engine's guarded transport.
 */
export async function codeFrom(
  ctx: RouteContext<{ component_code?: string; component_url?: string; filename?: string }>,
): Promise<{ code: string; filename?: string; files?: Record<string, string> } | undefined> {
  const { component_code, component_url, filename } = ctx.params;
  if (component_code !== undefined && component_url !== undefined) {
    throw new HooklineError("conflicting_parameter", "give component_code or component_url, not both");
  }
  if (component_code !== undefined) return { code: component_code, ...(filename ? { filename } : {}) };
  if (component_url !== undefined) {
    const fetched = await ctx.hookline.components.fetchSource(component_url);
    const name = filename ?? fetched.filename;
    return { ...fetched, ...(name ? { filename: name } : {}) };
  }
  return undefined;
}

/** `strict`: refuse the component when it has warnings (SPEC rules Pipedream does not enforce). */
const Strict = Type.Optional(
  Type.Boolean({
    description: "Refuse the component when it breaks SPEC rules Pipedream accepts (its warnings)",
  }),
);

/** A published component: a saved component with its registry `visibility`. */
const RegistryData = Type.Object({
  ...ComponentData.properties,
  key: Type.String(),
  visibility: Type.Union([Type.Literal("private"), Type.Literal("public")]),
  app: Type.Union([Type.String(), Type.Null()], {
    description: "The app it belongs to: its first app prop's app, else its key's first segment",
  }),
  own: Type.Boolean({ description: "Published by this workspace (else another workspace's public one)" }),
});

function registryJson(c: ComponentView, workspaceId: string) {
  return {
    ...componentJson(c),
    visibility: c.visibility ?? "private",
    app: componentApp({ key: c.key ?? c.description.key, props: c.description.props }) ?? null,
    own: c.workspaceId === workspaceId,
  };
}

/** The component routes. */
export const componentRoutes = [
  defineRoute({
    method: "POST",
    path: "/v1/components",
    tag: "Components",
    summary: "Save a component from code or a URL",
    params: Type.Object({ ...CodeParams, strict: Strict }),
    data: ComponentData,
    warnings: true,
    async handler(ctx) {
      const code = await codeFrom(ctx);
      if (!code) throw new HooklineError("bad_request", "component_code or component_url is required");
      const saved = await ctx.hookline.components.save(ctx.workspaceId, code, {
        strict: ctx.params.strict === true,
      });
      return { data: componentJson(saved), warnings: saved.description.warnings ?? [] };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/components",
    tag: "Components",
    summary: "List saved components",
    params: Type.Object(ListParams),
    data: ComponentData,
    list: true,
    async handler({ hookline, workspaceId, params }) {
      const page = paginate(await hookline.components.list(workspaceId), (c) => c.id, params);
      return { list: page.list.map(componentJson), pageInfo: page.pageInfo, cursor: page.cursor };
    },
  }),
  // The registry routes come before /v1/components/{id}, which would match them too.
  defineRoute({
    method: "POST",
    path: "/v1/components/registry",
    tag: "Registry",
    summary:
      "Publish a component by key and semantic version: private (this workspace) or public (every workspace)",
    params: Type.Object({
      component_id: Type.Optional(Type.String({ description: "A saved component of this workspace" })),
      ...CodeParams,
      visibility: Type.Optional(
        Type.Union([Type.Literal("private"), Type.Literal("public")], { description: "Default private" }),
      ),
      strict: Strict,
    }),
    data: RegistryData,
    warnings: true,
    async handler(ctx) {
      const code = await codeFrom(ctx);
      const { component_id, visibility, strict } = ctx.params;
      if (code && component_id !== undefined) {
        throw new HooklineError("conflicting_parameter", "give component_id or code, not both");
      }
      if (!code && component_id === undefined) {
        throw new HooklineError("bad_request", "component_id, component_code or component_url is required");
      }
      const published = await ctx.hookline.registry.publish(ctx.workspaceId, {
        ...(code ? { code } : { componentId: component_id }),
        ...(visibility ? { visibility } : {}),
        ...(strict === true ? { strict } : {}),
      });
      return {
        data: registryJson(published, ctx.workspaceId),
        warnings: published.description.warnings ?? [],
      };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/components/registry/import",
    tag: "Registry",
    summary:
      "Import an npm package's components (@pipedream/<app>, or any package in Pipedream's layout) into the registry, as pd registry import does",
    params: Type.Object({
      package: Type.String({
        maxLength: 214,
        description: "An npm package name, optionally with a range: @pipedream/slack@^1",
      }),
      visibility: Type.Optional(
        Type.Union([Type.Literal("private"), Type.Literal("public")], { description: "Default private" }),
      ),
    }),
    data: Type.Object({
      name: Type.String(),
      version: Type.String({ description: "The version of the package found" }),
      components: Type.Array(
        Type.Object({
          file: Type.String(),
          status: Type.Union([Type.Literal("published"), Type.Literal("exists"), Type.Literal("failed")]),
          key: Type.Union([Type.String(), Type.Null()]),
          version: Type.Union([Type.String(), Type.Null()]),
          id: Type.Union([Type.String(), Type.Null()]),
          error: Type.Union([Type.Object({ code: Type.String(), message: Type.String() }), Type.Null()]),
        }),
      ),
    }),
    async handler({ hookline, workspaceId, params }) {
      const got = await hookline.registry.importPackage(workspaceId, params.package, {
        ...(params.visibility ? { visibility: params.visibility } : {}),
      });
      return {
        data: {
          name: got.name,
          version: got.version,
          components: got.components.map((c) => ({
            file: c.file,
            status: c.status,
            key: c.key ?? null,
            version: c.version ?? null,
            id: c.id ?? null,
            error: c.error ?? null,
          })),
        },
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/components/registry",
    tag: "Registry",
    summary: "List the published components this workspace can see (its own and every public one)",
    params: Type.Object({
      ...ListParams,
      all_versions: Type.Optional(
        Type.Boolean({ description: "Every version instead of the newest per key" }),
      ),
      q: Type.Optional(
        Type.String({
          maxLength: 200,
          description: "Words that must all appear (any case) in the key, name, description or app",
        }),
      ),
      type: Type.Optional(Type.Union([Type.Literal("source"), Type.Literal("action")])),
      app: Type.Optional(Type.String({ maxLength: 100, description: "Only this app's components" })),
    }),
    data: RegistryData,
    list: true,
    async handler({ hookline, workspaceId, params }) {
      const all = await hookline.registry.list(workspaceId, {
        allVersions: params.all_versions === true,
        ...(params.q !== undefined ? { query: params.q } : {}),
        ...(params.type !== undefined ? { type: params.type } : {}),
        ...(params.app !== undefined ? { app: params.app } : {}),
      });
      const page = paginate(all, (c) => c.id, params);
      return {
        list: page.list.map((c) => registryJson(c, workspaceId)),
        pageInfo: page.pageInfo,
        cursor: page.cursor,
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/components/registry/{key}",
    tag: "Registry",
    summary: "Read a published component by key: the newest version, or the given one (also key@1.2.3)",
    params: Type.Object({ version: Type.Optional(Type.String()) }),
    data: RegistryData,
    async handler({ hookline, workspaceId, path, params }) {
      return {
        data: registryJson(
          await hookline.registry.get(workspaceId, path.key as string, params.version),
          workspaceId,
        ),
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/components/{id}",
    tag: "Components",
    summary: "Get a saved component by id, or by key (key or key@version)",
    data: ComponentData,
    async handler({ hookline, workspaceId, path }) {
      return { data: componentJson(await hookline.components.get(workspaceId, path.id as string)) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/v1/components/{id}/code",
    tag: "Components",
    summary: "The code of a saved component (by id, or by key as above), as uploaded",
    data: Type.Object({ id: Type.String({ pattern: "^sc_" }), filename: Type.String(), code: Type.String() }),
    async handler({ hookline, workspaceId, path }) {
      const c = await hookline.components.get(workspaceId, path.id as string);
      return { data: { id: c.id, filename: c.filename, code: c.code } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/components/{id}/props/{prop}/options",
    tag: "Components",
    summary: "Async options of a prop, given the props configured so far",
    params: Type.Object({
      configured_props: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      page: Type.Optional(Type.Integer({ minimum: 0 })),
      prevContext: Type.Optional(Type.Unknown()),
      query: Type.Optional(Type.String()),
    }),
    data: Type.Object({ options: Type.Array(Type.Unknown()), context: Type.Optional(Type.Unknown()) }),
    async handler({ hookline, workspaceId, path, params }) {
      const result = await hookline.sources.options(
        workspaceId,
        { componentId: path.id as string },
        path.prop as string,
        {
          ...(params.page !== undefined ? { page: params.page } : {}),
          ...(params.prevContext !== undefined ? { prevContext: params.prevContext } : {}),
          ...(params.query !== undefined ? { query: params.query } : {}),
          ...(params.configured_props ? { props: params.configured_props } : {}),
        },
      );
      return { data: result };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/components/{id}/reload_props",
    tag: "Components",
    summary: "The component's props after additionalProps(), given the props configured so far",
    params: Type.Object({
      configured_props: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      previous_props: Type.Optional(
        Type.Array(Type.Object({ name: Type.String(), type: Type.String() }), {
          description:
            "The configurable_props of the previous answer: merged into the previousPropDefs additionalProps() receives",
        }),
      ),
    }),
    data: Type.Object({
      configurable_props: Type.Array(Type.Object({ name: Type.String(), type: Type.String() })),
    }),
    async handler({ hookline, workspaceId, path, params }) {
      const previous = params.previous_props
        ? Object.fromEntries(
            (params.previous_props as ({ name: string } & PropDescription)[]).map(({ name, ...prop }) => [
              name,
              prop,
            ]),
          )
        : undefined;
      const props = await hookline.components.reloadProps(
        workspaceId,
        path.id as string,
        params.configured_props ?? {},
        previous ? { previous } : {},
      );
      return { data: { configurable_props: Object.entries(props).map(([name, p]) => ({ name, ...p })) } };
    },
  }),
];
