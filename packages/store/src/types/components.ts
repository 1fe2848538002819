/** Saved and deployed components, their dedupe state and their `db`. */
import type { ComponentDescription } from "@hookline/core";

/** Who may find a saved component by key. */
export type Visibility = "private" | "public";

/** A saved (validated and bundled) component. */
export interface SavedComponent {
  /** `sc_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The source as uploaded. */
  code: string;
  /** Hash of `code`. */
  codeHash: string;
  /** The uploaded file name. */
  filename: string;
  /** The bundled code the runtime loads. */
  bundle: string;
  /** The component description (props, name, version, ...) extracted at save time. */
  description: ComponentDescription;
  /** The component key, such as `github-new-issue`. */
  key?: string;
  /** The component version (semver). */
  version?: string;
  /** Whether other workspaces can find it by key. */
  published: Visibility;
  /** Creation time. */
  createdAt: number;
}

/** Input of {@link SavedComponentStore.create}. */
export interface CreateSavedComponentInput {
  /** Owning workspace. */
  workspaceId: string;
  /** The source. */
  code: string;
  /** Hash of `code`. */
  codeHash: string;
  /** The file name. */
  filename: string;
  /** The bundled code. */
  bundle: string;
  /** The component description. */
  description: ComponentDescription;
  /** The component key. */
  key?: string;
  /** The component version. */
  version?: string;
  /** Visibility; `private` by default. */
  published?: Visibility;
}

/** Saved component records. */
export interface SavedComponentStore {
  /** Stores a saved component; throws `conflict` when the workspace has the same key and version. */
  create(input: CreateSavedComponentInput): Promise<SavedComponent>;
  /** The saved component, or undefined. */
  get(workspaceId: string, id: string): Promise<SavedComponent | undefined>;
  /** The workspace's saved components, oldest first. */
  list(workspaceId: string): Promise<SavedComponent[]>;
  /**
   * Finds a component by key among the workspace's own and every workspace's public ones: the given
   * version, or the newest (semver) when `version` is absent. The workspace's own wins a tie.
   */
  findByKey(workspaceId: string, key: string, version?: string): Promise<SavedComponent | undefined>;
}

/** A deployed component: a saved component with props, running. */
export interface DeployedComponent {
  /** `dc_` id. */
  id: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The saved component it runs. */
  savedComponentId: string;
  /** Display name. */
  name: string;
  /** URL-safe name, unique per workspace. */
  slug: string;
  /** Prop values (secret ones already encrypted). */
  props: Record<string, unknown>;
  /** Whether triggers run it. */
  active: boolean;
  /** `en_` id of its HTTP endpoint, when it has one (unique across the store). */
  endpointId?: string;
  /** Whether its HTTP endpoint responds with `$respond` instead of a fixed 200. */
  customResponse?: boolean;
  /** Free-form extra data owned by the engine. */
  meta?: Record<string, unknown>;
  /** Creation time. */
  createdAt: number;
  /** Last update time. */
  updatedAt: number;
}

/** Input of {@link DeployedComponentStore.create}. */
export interface CreateDeployedComponentInput {
  /** Use this id instead of a new `dc_` id. */
  id?: string;
  /** Owning workspace. */
  workspaceId: string;
  /** The saved component it runs. */
  savedComponentId: string;
  /** Display name. */
  name: string;
  /** URL-safe name, unique per workspace. */
  slug: string;
  /** Prop values. */
  props: Record<string, unknown>;
  /** Whether triggers run it. */
  active: boolean;
  /** `en_` id of its HTTP endpoint. */
  endpointId?: string;
  /** Whether its HTTP endpoint responds with `$respond`. */
  customResponse?: boolean;
  /** Free-form extra data. */
  meta?: Record<string, unknown>;
}

/** Fields of a deployed component that {@link DeployedComponentStore.update} changes (`null` clears). */
export interface DeployedComponentPatch {
  /** New saved component (an update of the code). */
  savedComponentId?: string;
  /** New display name. */
  name?: string;
  /** New slug (throws `conflict` when taken). */
  slug?: string;
  /** New prop values (replace the old ones). */
  props?: Record<string, unknown>;
  /** Activate or deactivate. */
  active?: boolean;
  /** New endpoint id, or null to remove it. */
  endpointId?: string | null;
  /** New custom response flag. */
  customResponse?: boolean;
  /** New extra data, or null to remove it. */
  meta?: Record<string, unknown> | null;
}

/** Deployed component records. */
export interface DeployedComponentStore {
  /** Stores a deployed component; throws `conflict` on a duplicate slug (per workspace) or endpoint. */
  create(input: CreateDeployedComponentInput): Promise<DeployedComponent>;
  /** The deployed component, or undefined. */
  get(workspaceId: string, id: string): Promise<DeployedComponent | undefined>;
  /** The deployed component with this slug in the workspace, or undefined. */
  getBySlug(workspaceId: string, slug: string): Promise<DeployedComponent | undefined>;
  /** The deployed component owning this endpoint, in any workspace (ingress has no key). */
  getByEndpoint(endpointId: string): Promise<DeployedComponent | undefined>;
  /** The workspace's deployed components, oldest first. */
  list(workspaceId: string): Promise<DeployedComponent[]>;
  /** Updates a deployed component; undefined when not found; throws `conflict` on a taken slug. */
  update(
    workspaceId: string,
    id: string,
    patch: DeployedComponentPatch,
  ): Promise<DeployedComponent | undefined>;
  /**
   * Deletes a deployed component and, in the same step, its db keys, dedupe state, timer, logs and
   * the subscriptions where it is the emitter or the listener. False when not found.
   */
  delete(workspaceId: string, id: string): Promise<boolean>;
}

/**
 * Dedupe state of deployed components (opaque to the store). It is written only by
 * `store.emits.commit`, together with the events it let through.
 */
export interface DedupeStore {
  /** The component's dedupe state, or undefined. */
  get(componentId: string): Promise<unknown>;
}

/** One key of a component's db. */
export interface KvEntry {
  /** The key. */
  key: string;
  /** The value (JSON-compatible). */
  value: unknown;
}

/** One write of a component's db: a key and its new value (`undefined`: the key is deleted). */
export type KvWrite = readonly [key: string, value: unknown];

/** A component's db as {@link KvStore.snapshot} reads it. */
export interface KvSnapshot {
  /** The db's version: 0 before its first change, one more with every change after. */
  version: number;
  /** Every entry by key; absent when the version is the one the caller said it knows. */
  entries?: Record<string, unknown>;
}

/**
 * The component `db` service: a key-value map per deployed component, with a version that every
 * change moves on, so that a reader may keep the entries and read them again only once they changed.
 */
export interface KvStore {
  /** The value, or undefined. */
  get(componentId: string, key: string): Promise<unknown>;
  /** Sets a value (JSON-compatible). */
  set(componentId: string, key: string, value: unknown): Promise<void>;
  /** Deletes a key; false when absent. */
  delete(componentId: string, key: string): Promise<boolean>;
  /** All entries of the component, sorted by key. */
  list(componentId: string): Promise<KvEntry[]>;
  /**
   * The db's version, and its entries unless that version is `known` (one round trip either way):
   * a reader that kept the entries of version `known` reads them again only once they changed.
   *
   * @example
   * ```ts
   * let kept = await store.kv.snapshot(id); // { version: 3, entries: { cursor: 9 } }
   * const again = await store.kv.snapshot(id, kept.version); // { version: 3 }: unchanged
   * ```
   */
  snapshot(componentId: string, known?: number): Promise<KvSnapshot>;
  /**
   * Applies `writes` in order, all or none (one round trip), and returns the db's new version: one
   * more than before. `set` and `delete` move the version on as well; no writes, no change.
   *
   * @example
   * ```ts
   * const version = await store.kv.write(id, [["cursor", 10], ["stale", undefined]]);
   * ```
   */
  write(componentId: string, writes: readonly KvWrite[]): Promise<number>;
}
