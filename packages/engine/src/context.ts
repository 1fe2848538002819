/**
 * The engine's explicit context: everything the engine modules (lifecycle, props, the emit
 * pipeline, ingress, timers...) need, built once by `createHookline` and passed as their first
 * argument. Modules take what they use from it; none keeps a hidden reference to another.
 */
import { describeProblems, HooklineError, type Problem } from "@hookline/core";
import type { Destinations, Transport } from "@hookline/delivery";
import type { Runtime } from "@hookline/runtime";
import type { DeployedComponent, SavedComponent, Store } from "@hookline/store";
import type { AppsContext } from "./apps.js";
import type { Clock } from "./clock.js";
import type { EndpointRegistry } from "./endpoints.js";
import type { HooklineEvents } from "./events.js";
import type { Mounts } from "./mounts.js";
import { componentNotFound } from "./not-found.js";
import type { Registry } from "./registry.js";
import type { Retention } from "./retention.js";
import type { SecretBox } from "./secrets.js";
import type { EngineLimits } from "./types.js";

/** What every engine module gets. @internal */
export interface EngineContext {
  readonly store: Store;
  readonly runtime: Runtime;
  /** Outbound HTTP (the SSRF-guarded transport unless the embedder gave one). */
  readonly transport: Transport;
  readonly clock: Clock;
  /** Where workflows' `$.send.email` and `$.send.s3` go (none configured: `{}`). */
  readonly destinations: Destinations;
  /** Seals and opens secrets at rest. */
  readonly box: SecretBox;
  readonly apps: AppsContext;
  readonly registry: Registry;
  /** Sandboxes and the per-source invocation queue. */
  readonly mounts: Mounts;
  /** Who listens at each HTTP endpoint, a source or a workflow (endpoints.ts). */
  readonly endpoints: EndpointRegistry;
  /** The engine's caps (emits per run, event size, queued invocations). */
  readonly limits: Readonly<EngineLimits>;
  /** Retention: writes mark their source, a sweep trims it later (see retention.ts). */
  readonly retention: Retention;
  /** The public base URL, without a trailing slash. */
  readonly baseUrl: string;
  /** This engine's id when claiming timers. */
  readonly nodeId: string;
  /** Emits a typed engine event; an observer's error never fails the operation. */
  notify<K extends keyof HooklineEvents>(type: K, payload: HooklineEvents[K]): void;
  /** Tells the delivery worker (when this node runs one) that deliveries are due. */
  wakeWorker(): void;
}

/** One line naming each problem: `path: message; path: message`. @internal */
export function problemsMessage(problems: Problem[]): string {
  return describeProblems(problems, "props");
}

/** A saved component of the workspace by id (404 `not_found` when absent). @internal */
export async function componentOrThrow(
  ctx: Pick<EngineContext, "store">,
  workspaceId: string,
  id: string,
): Promise<SavedComponent> {
  const component = await ctx.store.savedComponents.get(workspaceId, id);
  if (!component) throw componentNotFound(id);
  return component;
}

/** A deployed source of the workspace by id or slug (404 `not_found` when absent). @internal */
export async function sourceOrThrow(
  ctx: Pick<EngineContext, "store">,
  workspaceId: string,
  idOrSlug: string,
): Promise<DeployedComponent> {
  const source =
    (await ctx.store.deployedComponents.get(workspaceId, idOrSlug)) ??
    (await ctx.store.deployedComponents.getBySlug(workspaceId, idOrSlug));
  if (!source) throw new HooklineError("not_found", `No source ${idOrSlug} in this workspace`);
  return source;
}
