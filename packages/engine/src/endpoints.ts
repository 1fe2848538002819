/**
 * The one registry of HTTP endpoints (`/http/{endpointId}`): who listens at an endpoint, a source or
 * a workflow (both take `en_` ids from one space). One lookup reads both from the store at once, and
 * one cache keeps the answer at most {@link SOURCE_CACHE_MS}: a change made on this node is seen at
 * once (lifecycle.ts and the workflows API call {@link EndpointRegistry.forget}); one made on
 * another node sharing the store, within {@link SOURCE_CACHE_MS}. Only found endpoints are kept, so
 * an endpoint deployed a moment later answers at once.
 */
import type { DeployedComponent, Store, Workflow } from "@hookline/store";

/** How long a node trusts what it read of an endpoint's listener (a source or workflow), in ms. */
export const SOURCE_CACHE_MS = 1_000;

/** Endpoints kept at most; past it the cache starts over. */
const MAX_ENDPOINTS = 10_000;

/** Who listens at an endpoint. */
export type EndpointOwner =
  | { kind: "source"; source: DeployedComponent }
  | { kind: "workflow"; workflow: Workflow };

/** The endpoint registry of one engine. @internal */
export interface EndpointRegistry {
  /** The source or workflow listening at `endpointId`, or undefined. */
  resolve(endpointId: string): Promise<EndpointOwner | undefined>;
  /** Forgets the endpoints of a source or workflow (`id`) that changed or was deleted on this node. */
  forget(id: string): void;
}

/** The id of an endpoint's owner. */
const ownerId = (owner: EndpointOwner): string =>
  owner.kind === "source" ? owner.source.id : owner.workflow.id;

/**
 * Builds the registry over `store`.
 *
 * @example
 * ```ts
 * const endpoints = createEndpointRegistry(store);
 * const owner = await endpoints.resolve("en_...");
 * if (owner?.kind === "workflow") console.log(owner.workflow.id);
 * ```
 */
export function createEndpointRegistry(
  store: Pick<Store, "deployedComponents" | "workflows">,
): EndpointRegistry {
  const known = new Map<string, { owner: EndpointOwner; at: number }>();
  // Bumped by every forget: a lookup that started before it does not cache its (maybe stale) answer.
  let generation = 0;
  return {
    async resolve(endpointId) {
      const now = performance.now();
      const hit = known.get(endpointId);
      if (hit && now - hit.at < SOURCE_CACHE_MS) return hit.owner;
      const seen = generation;
      const [source, workflow] = await Promise.all([
        store.deployedComponents.getByEndpoint(endpointId),
        store.workflows?.getByEndpoint(endpointId),
      ]);
      const owner: EndpointOwner | undefined = source
        ? { kind: "source", source }
        : workflow
          ? { kind: "workflow", workflow }
          : undefined;
      if (known.size >= MAX_ENDPOINTS) known.clear();
      if (owner && seen === generation) known.set(endpointId, { owner, at: now });
      else known.delete(endpointId);
      return owner;
    },
    forget(id) {
      generation++;
      for (const [endpointId, entry] of known) if (ownerId(entry.owner) === id) known.delete(endpointId);
    },
  };
}
