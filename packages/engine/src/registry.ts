/**
 * The component registry: components published by key and semantic version, either to the
 * publishing workspace only (`private`) or to every workspace of this installation (`public`).
 *
 * A published component is a saved component (`sc_...`) whose store row carries its `key`,
 * `version` and visibility; plain saved components have no key there and are not in the registry.
 * Resolution is "own first": when the workspace published any version of a key itself, only its
 * own versions count, so another workspace's public component can never take over a key someone
 * uses privately by publishing a higher version.
 */
import { createHash } from "node:crypto";
import {
  type ComponentDescription,
  describeProblems,
  HooklineError,
  type Problem,
  type PropDescription,
  validateComponent,
} from "@hookline/core";
import type { PackagesOptions } from "@hookline/runtime";
import {
  compareVersions,
  type SavedComponent,
  type Store,
  StoreError,
  type Visibility,
} from "@hookline/store";
import { componentNotFound } from "./not-found.js";
import { importPackage, type PackageImport } from "./registry-import.js";
import { matchesSearch, type RegistrySearch } from "./registry-search.js";
import type { CodeInput } from "./types.js";
import type { ComponentView } from "./views.js";

export type { Visibility };

/** A workspace id no workspace has: `findByKey` from its point of view sees public rows only. */
const NOBODY = "";

/** What {@link RegistryApi.publish} takes: a saved component of the workspace, or code. */
export interface PublishInput {
  /** A saved component of this workspace (`sc_...`) to publish. */
  componentId?: string;
  /** Code to save and publish in one step. */
  code?: CodeInput;
  /** `private` (default): this workspace only; `public`: every workspace of this installation. */
  visibility?: Visibility;
  /**
   * Refuse the component when it has warnings (SPEC rules real components break, see
   * `validateComponent`), as `pd publish --registry` does: they become the error's problems.
   */
  strict?: boolean;
}

/** Options of {@link RegistryApi.list}: every version or the newest, narrowed by a search. */
export interface RegistryListOptions extends RegistrySearch {
  /** Every published version instead of the newest per key. */
  allVersions?: boolean;
}

/**
 * The component registry of an engine (`hookline.registry`).
 *
 * @example
 * ```ts
 * const published = await hookline.registry.publish(ws.id, {
 *   code: { filename: "new-star.mjs", code },
 *   visibility: "public",
 * });
 * published.key; // "github-new-star"
 * await hookline.sources.deploy(otherWs.id, { componentKey: "github-new-star@1.0.0", props });
 * ```
 */
export interface RegistryApi {
  /**
   * Publishes a component under its `key` and `version`. It must pass core's registry rules: a
   * valid key (`invalid_registry_key`, 422), in the public registry `<app_slug>-<slug>` (a slug
   * other than the slugified name is a warning), and a semantic version (`invalid_version`, 422);
   * `details.problems` lists every problem. With `strict`, warnings are refused too. The view's
   * `description.warnings` holds the warnings of the published component. Publishing a
   * key and version this workspace already published is `component_version_exists` (409); a public
   * key another workspace publishes is `registry_key_taken` (409).
   */
  publish(workspaceId: string, input: PublishInput): Promise<ComponentView>;
  /**
   * The published components the workspace can see: its own (private and public) and every other
   * workspace's public ones whose key it does not publish itself. The newest version per key
   * (semantic version order), or every version with `allVersions`.
   */
  list(workspaceId: string, options?: RegistryListOptions): Promise<ComponentView[]>;
  /**
   * A published component by key: the newest visible version, or the given one. `key@1.2.3` pins a
   * version too. Unknown, or another workspace's private component: `not_found` (404).
   */
  get(workspaceId: string, key: string, version?: string): Promise<ComponentView>;
  /**
   * Publishes the components of an npm package (`@pipedream/slack`, `pkg@^1.2`) found through the
   * server's package resolvers, as `pd registry import` does from a client: each file of
   * Pipedream's layout with its relative imports, its bare imports given the package's declared
   * ranges. A file already published (same key and version) is `exists`; one that fails is
   * recorded with its error and the next goes on. 404 `not_found` when no resolver has it.
   *
   * @example
   * ```ts
   * const got = await hookline.registry.importPackage(ws.id, "@pipedream/http", { visibility: "public" });
   * got.components.filter((c) => c.status === "published").map((c) => c.key);
   * ```
   */
  importPackage(
    workspaceId: string,
    spec: string,
    options?: { visibility?: Visibility },
  ): Promise<PackageImport>;
}

/**
 * Splits `github-new-star@1.2.0` into key and version. A version given separately must agree with
 * the one in the key (`conflicting_parameter`, 400 otherwise).
 *
 * @example
 * ```ts
 * parseComponentKey("github-new-star@1.2.0"); // { key: "github-new-star", version: "1.2.0" }
 * ```
 */
export function parseComponentKey(ref: string, version?: string): { key: string; version?: string } {
  // A key has no "@" (REGISTRY_KEY): the first one starts the version, which is free form privately.
  const at = ref.indexOf("@");
  const key = at > 0 ? ref.slice(0, at) : ref;
  const pinned = at > 0 ? ref.slice(at + 1) : undefined;
  if (key === "") throw new HooklineError("bad_request", "a component key is required");
  if (pinned !== undefined && version !== undefined && pinned !== version) {
    throw new HooklineError(
      "conflicting_parameter",
      `the key pins version ${pinned} but component_version is ${version}`,
    );
  }
  const chosen = pinned ?? version;
  return chosen === undefined || chosen === "" ? { key } : { key, version: chosen };
}

/**
 * The error for problems found when saving or publishing: `invalid_registry_key` when one is about
 * the key, else `invalid_version` when one is about the version, else `invalid_component`; every
 * problem in `details.problems`. @internal
 */
export function publishError(problems: Problem[], what = "Cannot publish"): HooklineError {
  const code = problems.some((p) => p.path === "key")
    ? "invalid_registry_key"
    : problems.some((p) => p.code === "invalid_version")
      ? "invalid_version"
      : "invalid_component";
  const message = describeProblems(problems);
  return new HooklineError(code, `${what}: ${message}`, { problems });
}

/**
 * Applies core's rules of the `visibility` registry to a loaded component's description and
 * returns its warnings with the registry's own (a public key that is not the slugified name...).
 * `strict` turns every warning into a problem. Throws {@link publishError} on problems. @internal
 */
export function checkRegistryRules(
  description: ComponentDescription,
  visibility: Visibility = "public",
  strict = false,
): Problem[] {
  // Only what the registry rules read: name, key, version and the app props' slugs.
  const apps: Record<string, { type: "app"; app: string }> = {};
  for (const [name, prop] of Object.entries(description.props) as [string, PropDescription][]) {
    if (prop.type === "app" && typeof prop.app === "string") apps[name] = { type: "app", app: prop.app };
  }
  const { problems, warnings } = validateComponent(
    {
      name: description.name,
      version: description.version,
      ...(description.key !== undefined ? { key: description.key } : {}),
      props: apps,
      run: { $fn: true },
    },
    { registry: visibility },
  );
  const all = [...(description.warnings ?? []), ...warnings];
  const refused = strict ? [...problems, ...all] : problems;
  if (refused.length > 0) throw publishError(refused);
  return all;
}

/** What the registry needs from the engine. @internal */
export interface RegistryContext {
  store: Store;
  /** Where npm packages are found for {@link RegistryApi.importPackage}. */
  packages?: PackagesOptions;
  /** Bundles and describes code (the engine's runtime.load). */
  load(input: CodeInput): Promise<{ bundle: string; description: ComponentDescription }>;
  view(saved: SavedComponent): ComponentView;
}

/** The registry and its resolver (used by deploy by key). @internal */
export interface Registry {
  api: RegistryApi;
  /** The visible published component for a key (own first), or undefined. */
  resolve(workspaceId: string, key: string, version?: string): Promise<SavedComponent | undefined>;
}

/** Creates the registry of an engine. @internal */
export function createRegistry(ctx: RegistryContext): Registry {
  const { store } = ctx;

  const newest = (rows: SavedComponent[]): SavedComponent | undefined =>
    rows.reduce<SavedComponent | undefined>(
      (best, row) => (!best || compareVersions(row.version, best.version) > 0 ? row : best),
      undefined,
    );

  const ownPublished = async (workspaceId: string, key?: string) =>
    (await store.savedComponents.list(workspaceId)).filter(
      (c) => c.key !== undefined && (key === undefined || c.key === key),
    );

  async function resolve(
    workspaceId: string,
    key: string,
    version?: string,
  ): Promise<SavedComponent | undefined> {
    const best = await store.savedComponents.findByKey(workspaceId, key, version);
    if (!best || best.workspaceId === workspaceId) return best;
    // Another workspace's public version: it counts only if this workspace has none of its own.
    const own = await ownPublished(workspaceId, key);
    if (own.length === 0) return best;
    return version === undefined ? newest(own) : own.find((c) => c.version === version);
  }

  const api: RegistryApi = {
    async publish(workspaceId, input) {
      if (!(await store.workspaces.get(workspaceId)))
        throw new HooklineError("not_found", `No workspace ${workspaceId}`);
      const visibility = input.visibility ?? "private";
      if (visibility !== "private" && visibility !== "public") {
        throw new HooklineError("bad_request", `visibility is "private" or "public", got "${visibility}"`);
      }
      if (input.componentId !== undefined && input.code !== undefined) {
        throw new HooklineError("conflicting_parameter", "give a componentId or code, not both");
      }
      let source: { code: string; codeHash: string; filename: string; bundle: string };
      let description: ComponentDescription;
      if (input.componentId !== undefined) {
        const saved = await store.savedComponents.get(workspaceId, input.componentId);
        if (!saved) throw componentNotFound(input.componentId);
        source = saved;
        description = saved.description;
      } else if (input.code !== undefined) {
        if (typeof input.code.code !== "string" || input.code.code.trim() === "") {
          throw new HooklineError("bad_request", "component code is required");
        }
        const loaded = await ctx.load(input.code);
        source = {
          code: input.code.code,
          codeHash: createHash("sha256").update(input.code.code).digest("hex"),
          filename: input.code.filename ?? "component.mjs",
          bundle: loaded.bundle,
        };
        description = loaded.description;
      } else throw new HooklineError("bad_request", "publish needs a componentId or code");

      const warnings = checkRegistryRules(description, visibility, input.strict === true);
      if (warnings.length > 0) description = { ...description, warnings };
      const key = description.key as string;
      const version = description.version;
      const existing = await store.savedComponents.findByKey(workspaceId, key, version);
      if (existing?.workspaceId === workspaceId) {
        throw new HooklineError(
          "component_version_exists",
          `${key}@${version} is already published by this workspace (${existing.id}): publish a new version`,
          { id: existing.id, key, version },
        );
      }
      if (visibility === "public") {
        const owner = await store.savedComponents.findByKey(NOBODY, key);
        if (owner && owner.workspaceId !== workspaceId) {
          throw new HooklineError(
            "registry_key_taken",
            `The public registry key ${key} belongs to another workspace: choose another key`,
            { key },
          );
        }
      }
      let saved: SavedComponent;
      try {
        saved = await store.savedComponents.create({
          workspaceId,
          code: source.code,
          codeHash: source.codeHash,
          filename: source.filename,
          bundle: source.bundle,
          description,
          key,
          version,
          published: visibility,
        });
      } catch (error) {
        // A concurrent publish of the same key and version won the race.
        if (error instanceof StoreError && error.code === "conflict") {
          throw new HooklineError(
            "component_version_exists",
            `${key}@${version} is already published by this workspace: publish a new version`,
            { key, version },
          );
        }
        throw error;
      }
      return ctx.view(saved);
    },

    async list(workspaceId, options = {}) {
      const own = await ownPublished(workspaceId);
      const ownKeys = new Set(own.map((c) => c.key));
      const visible = [...own];
      for (const ws of await store.workspaces.list()) {
        if (ws.id === workspaceId) continue;
        for (const c of await store.savedComponents.list(ws.id)) {
          if (c.key !== undefined && c.published === "public" && !ownKeys.has(c.key)) visible.push(c);
        }
      }
      // A search finds a key by its newest version's description (every version's, with allVersions).
      const found = (c: SavedComponent) => matchesSearch(c.key, c.description, options);
      if (options.allVersions) return visible.filter(found).map(ctx.view);
      const byKey = new Map<string, SavedComponent[]>();
      for (const c of visible) byKey.set(c.key as string, [...(byKey.get(c.key as string) ?? []), c]);
      return [...byKey.values()]
        .map((rows) => newest(rows) as SavedComponent)
        .filter(found)
        .map(ctx.view);
    },

    async importPackage(workspaceId, spec, options = {}) {
      const deps = {
        packages: ctx.packages ?? {},
        load: ctx.load,
        publish: (input: PublishInput) => api.publish(workspaceId, input),
      };
      return importPackage(deps, spec, options.visibility ?? "private");
    },

    async get(workspaceId, ref, version) {
      const parsed = parseComponentKey(ref, version);
      const found = await resolve(workspaceId, parsed.key, parsed.version);
      if (!found) {
        throw new HooklineError(
          "not_found",
          parsed.version === undefined
            ? `No published component ${parsed.key} is visible to this workspace`
            : `No published component ${parsed.key}@${parsed.version} is visible to this workspace`,
        );
      }
      return ctx.view(found);
    },
  };

  return { api, resolve };
}
