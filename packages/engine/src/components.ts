/**
 * Saved components (`sc_...`): saving code (bundled and described by the runtime), finding a
 * component by id or registry key, copying a public registry component into a workspace, and the
 * `components` API (code by URL is code-url.ts).
 */
import { createHash } from "node:crypto";
import { HooklineError, type PropDescription } from "@hookline/core";
import type { SavedComponent } from "@hookline/store";
import { createCodeFetcher, type FetchedSource } from "./code-url.js";
import type { EngineContext } from "./context.js";
import { finalProps } from "./dynamic-props.js";
import { componentNotFound } from "./not-found.js";
import { additionalPropsFor } from "./props.js";
import { parseComponentKey, publishError } from "./registry.js";
import type { CodeInput } from "./types.js";
import { type ComponentView, componentView } from "./views.js";

/** Saved components (`sc_...`): `hookline.components`. */
export interface ComponentsApi {
  /**
   * Bundles, validates and saves code (422 `invalid_component` with every problem when invalid).
   * The view's `description.warnings` lists the SPEC rules the code breaks that Pipedream
   * accepts; `strict` refuses them too (422 with the warnings as `details.problems`).
   */
  save(workspaceId: string, input: CodeInput, options?: { strict?: boolean }): Promise<ComponentView>;
  /**
   * A saved component by id, or by key (`key` or `key@1.2.3`): the published component visible
   * to the workspace (see {@link Hookline.registry}), else the workspace's most recently saved
   * component whose code has that key. 404 `not_found` when there is none.
   */
  get(workspaceId: string, idOrKey: string): Promise<ComponentView>;
  /** The workspace's saved components. */
  list(workspaceId: string): Promise<ComponentView[]>;
  /**
   * Fetches component code from a URL through the guarded transport (private addresses are
   * refused unless the transport allows them); at most 1 MB, 2xx only.
   */
  fetchCode(url: string): Promise<string>;
  /**
   * Fetches a component by URL with the relative files it imports (`../../app.app.mjs`), from the
   * same base URL through the guarded transport: at most 50 files and 5 MB (`payload_too_large`);
   * a relative file that cannot be fetched is `module_not_found` naming it. The result is what
   * `save` and `sources.deploy` take as code.
   */
  fetchSource(url: string): Promise<FetchedSource>;
  /**
   * The props of a saved component (id or key) after `additionalProps()` ran with the values
   * configured so far (SPEC's `reloadProps`): the component's own props merged with the
   * additional ones, which replace any earlier result. `previous` (the additional props of the
   * last call) is merged into the `previousPropDefs` that `additionalProps` receives. A
   * `ConfigurationError` thrown there is `configuration_error` (422) with its message as is.
   *
   * @example
   * ```ts
   * const props = await hookline.components.reloadProps(ws.id, component.id, { mode: "advanced" });
   * Object.keys(props); // ["mode", "color"]: "color" came from additionalProps()
   * ```
   */
  reloadProps(
    workspaceId: string,
    componentId: string,
    configured: Record<string, unknown>,
    options?: { previous?: Record<string, PropDescription> },
  ): Promise<Record<string, PropDescription>>;
}

/**
 * Bundles, validates and saves code (422 with every problem when invalid; with `strict`, also
 * when it has warnings). @internal
 */
export async function saveCode(
  ctx: Pick<EngineContext, "runtime" | "store">,
  workspaceId: string,
  input: CodeInput,
  strict = false,
): Promise<SavedComponent> {
  if (typeof input.code !== "string" || input.code.trim() === "") {
    throw new HooklineError("bad_request", "component code is required");
  }
  const filename = input.filename ?? "component.mjs";
  const loaded = await ctx.runtime.load({
    code: input.code,
    filename,
    ...(input.files ? { files: input.files } : {}),
  });
  const warnings = loaded.description.warnings ?? [];
  if (strict && warnings.length > 0) throw publishError(warnings, "The component is not valid (strict)");
  return ctx.store.savedComponents.create({
    workspaceId,
    code: input.code,
    codeHash: createHash("sha256").update(input.code).digest("hex"),
    filename,
    bundle: loaded.bundle,
    description: loaded.description,
  });
}

/**
 * A saved component by id, or by key (`key`, `key@version`): the published component visible to
 * the workspace first, then the workspace's most recently saved code with that key. @internal
 */
export async function componentFor(
  ctx: Pick<EngineContext, "store" | "registry">,
  workspaceId: string,
  ref: string,
): Promise<SavedComponent> {
  const own = await ctx.store.savedComponents.get(workspaceId, ref);
  if (own) return own;
  if (!ref.startsWith("sc_") && ref !== "") {
    const { key, version } = parseComponentKey(ref);
    const published = await ctx.registry.resolve(workspaceId, key, version);
    if (published) return published;
    const withKey = (await ctx.store.savedComponents.list(workspaceId)).filter((c) => {
      const d = c.description;
      return d.key === key && (version === undefined || d.version === version);
    });
    const latest = withKey[withKey.length - 1];
    if (latest) return latest;
  }
  throw componentNotFound(ref);
}

/**
 * The published component to deploy for a key: the newest visible version or the pinned one. A
 * public component of another workspace is copied into this one (sources only run their own
 * workspace's saved components; the copy also outlives the publisher's workspace), once: deploying
 * the same version again reuses the copy. @internal
 */
export async function componentFromKey(
  ctx: Pick<EngineContext, "store" | "registry">,
  workspaceId: string,
  ref: string,
  version?: string,
): Promise<SavedComponent> {
  const parsed = parseComponentKey(ref, version);
  const found = await ctx.registry.resolve(workspaceId, parsed.key, parsed.version);
  if (!found) {
    const what = parsed.version === undefined ? parsed.key : `${parsed.key}@${parsed.version}`;
    throw new HooklineError("not_found", `No published component ${what} is visible to this workspace`);
  }
  if (found.workspaceId === workspaceId) return found;
  const copies = await ctx.store.savedComponents.list(workspaceId);
  const copy = copies.find((c) => c.key === undefined && c.codeHash === found.codeHash);
  if (copy) return copy;
  return ctx.store.savedComponents.create({
    workspaceId,
    code: found.code,
    codeHash: found.codeHash,
    filename: found.filename,
    bundle: found.bundle,
    description: found.description,
  });
}

/** The `components` API of an engine. @internal */
export function createComponentsApi(ctx: EngineContext): ComponentsApi {
  const code = createCodeFetcher({ transport: ctx.transport, load: (input) => ctx.runtime.load(input) });
  return {
    async save(workspaceId, input, options = {}) {
      return componentView(await saveCode(ctx, workspaceId, input, options.strict === true));
    },
    async get(workspaceId, idOrKey) {
      return componentView(await componentFor(ctx, workspaceId, idOrKey));
    },
    async list(workspaceId) {
      return (await ctx.store.savedComponents.list(workspaceId)).map(componentView);
    },
    fetchCode: code.fetchCode,
    fetchSource: code.fetchSource,
    async reloadProps(workspaceId, componentId, configured, options = {}) {
      const component = await componentFor(ctx, workspaceId, componentId);
      const description = component.description;
      const previous = { ...description.props, ...(options.previous ?? {}) };
      return finalProps(
        description,
        await additionalPropsFor(ctx, workspaceId, component, configured, previous),
      );
    },
  };
}
