/**
 * A source's lifecycle (SPEC "States and transitions"): deploy (`deploy()` then `activate()`),
 * update (`deactivate()` of the running instance, then `activate()` of the new one; also plain
 * activation and deactivation) and delete (`deactivate()`). All or nothing: hooks write to staged
 * db writes, kept only when every hook succeeded (docs/engine.md, "Hooks that throw").
 *
 * Each operation runs in the source's invocation queue (unbounded: a flooded source can still be
 * deactivated), so it never overlaps a run of the same source.
 */
import {
  type ComponentDescription,
  HooklineError,
  newId,
  type PropDescription,
  uniqueSlug,
} from "@hookline/core";
import type { InvocationResult, MountedComponent } from "@hookline/runtime";
import type { DeployedComponent, SavedComponent, Store } from "@hookline/store";
import { componentFromKey, saveCode } from "./components.js";
import { componentOrThrow, type EngineContext, sourceOrThrow } from "./context.js";
import { dynamicPropsOf, finalProps, withDynamicProps } from "./dynamic-props.js";
import { storeEmits } from "./emit-pipeline.js";
import { HTTP_INTERFACE, hasCustomResponse, hasHttpInterface } from "./interfaces.js";
import { flushStaged, type MountTarget, runtimeProps, type StagedDb } from "./mounts.js";
import { additionalPropsFor, prepareProps } from "./props.js";
import { writeLogs } from "./source-logs.js";
import { scheduleTimer } from "./timers.js";
import type { DeployInput, UpdateInput } from "./types.js";
import { type SourceView, sourceView } from "./views.js";

type HookName = "deploy" | "activate" | "deactivate";
type SourceRef = { id: string; workspaceId: string };

/** Runs one lifecycle hook and tells observers (`invocation`). */
async function runHook(
  ctx: EngineContext,
  mounted: MountedComponent,
  source: SourceRef,
  name: HookName,
): Promise<InvocationResult> {
  const result = await mounted.hook(name);
  ctx.notify("invocation", {
    workspaceId: source.workspaceId,
    sourceId: source.id,
    kind: name,
    durationMs: result.durationMs,
    ...(result.error ? { error: { code: result.error.code, message: result.error.message } } : {}),
  });
  return result;
}

/** `hook_failed` (422) for a hook that threw, with its error and logs in `details`. */
function hookError(hook: HookName, result: InvocationResult): HooklineError {
  const error = result.error;
  return new HooklineError(
    "hook_failed",
    `The ${hook}() hook failed: ${error?.name ?? "Error"}: ${error?.message ?? ""}`,
    { hook, error, logs: result.logs },
  );
}

/** Writes the logs and emits of a source's hooks, once the change they made is stored. */
async function recordHooks(
  ctx: EngineContext,
  source: SourceRef,
  description: ComponentDescription,
  results: InvocationResult[],
): Promise<void> {
  for (const result of results) await storeEmits(ctx, source, description, result.emits, result.logs);
}

/** The component a deploy or update names: a saved one by id, a registry key, or new code. */
async function chosenComponent(
  ctx: EngineContext,
  workspaceId: string,
  input: DeployInput | UpdateInput,
): Promise<SavedComponent | undefined> {
  if (input.componentId) return componentOrThrow(ctx, workspaceId, input.componentId);
  if (input.componentKey)
    return componentFromKey(ctx, workspaceId, input.componentKey, input.componentVersion);
  if (input.code) return saveCode(ctx, workspaceId, input.code);
  return undefined;
}

/**
 * Deploys a source: props validated, `deploy()` then `activate()` (unless `active: false`) against
 * staged db writes, then the source stored, its db writes flushed, its timer scheduled. @internal
 */
export async function deploySource(
  ctx: EngineContext,
  workspaceId: string,
  input: DeployInput,
): Promise<SourceView> {
  if (!(await ctx.store.workspaces.get(workspaceId)))
    throw new HooklineError("not_found", `No workspace ${workspaceId}`);
  const component = await chosenComponent(ctx, workspaceId, input);
  if (!component)
    throw new HooklineError("bad_request", "deploy needs a componentId, a componentKey or code");
  const description = component.description;
  if (description.type !== "source") {
    throw new HooklineError("bad_request", `${description.name} is an action: only sources can be deployed`);
  }
  // additionalProps() (when the component has it) adds props given the values configured.
  const dynamic = await additionalPropsFor(
    ctx,
    workspaceId,
    component,
    input.props ?? {},
    description.props,
    {
      bounded: false,
    },
  );
  const meta = withDynamicProps(undefined, dynamic);
  const props = await prepareProps(ctx, workspaceId, finalProps(description, dynamic), input.props ?? {});
  const slugs = (await ctx.store.deployedComponents.list(workspaceId)).map((d) => d.slug);
  const name = input.name ?? description.name;
  const active = input.active ?? true;
  const draft: MountTarget = {
    id: newId("dc", ctx.clock.now()),
    workspaceId,
    props,
    endpointId: hasHttpInterface(description.props) ? newId("en", ctx.clock.now()) : undefined,
    meta,
  };
  return ctx.mounts.exclusive(
    draft.id,
    async () => {
      // Hooks run against staged db writes; nothing is stored unless every hook succeeds.
      const staged: StagedDb = new Map();
      const mounted = await ctx.mounts.mount(draft, component, staged);
      const results: InvocationResult[] = [];
      try {
        const deployed = await runHook(ctx, mounted, draft, "deploy");
        results.push(deployed);
        if (deployed.error) throw hookError("deploy", deployed);
        if (active) {
          const activated = await runHook(ctx, mounted, draft, "activate");
          results.push(activated);
          if (activated.error) {
            // Let the component undo what deploy() set up elsewhere.
            await runHook(ctx, mounted, draft, "deactivate").catch(() => undefined);
            throw hookError("activate", activated);
          }
        }
      } finally {
        mounted.dispose();
      }
      const source = await ctx.store.deployedComponents.create({
        id: draft.id,
        workspaceId,
        savedComponentId: component.id,
        name,
        slug: uniqueSlug(name, slugs),
        props,
        active,
        ...(draft.endpointId ? { endpointId: draft.endpointId } : {}),
        ...(meta ? { meta } : {}),
        customResponse: hasCustomResponse(description.props),
      });
      await flushStaged(ctx.store, source.id, staged);
      await recordHooks(ctx, source, description, results);
      await scheduleTimer(ctx, source, description);
      ctx.notify("source", { workspaceId, sourceId: source.id, change: "deployed" });
      return sourceView(source, component, ctx.baseUrl);
    },
    { bounded: false },
  );
}

/**
 * The stored props and meta of an updated source: values given replace, others keep their earlier
 * value (secrets opened, then sealed again), app props keep their account; with additionalProps,
 * the dynamic props are asked again with the merged values.
 */
async function updatedProps(
  ctx: EngineContext,
  current: DeployedComponent,
  previous: SavedComponent,
  component: SavedComponent,
  given: Record<string, unknown> | undefined,
): Promise<{ props: Record<string, unknown>; meta: Record<string, unknown> | undefined }> {
  const { workspaceId } = current;
  const description = component.description;
  const oldDeclared = finalProps(previous.description, dynamicPropsOf(current.meta));
  const opened = await runtimeProps(ctx, workspaceId, oldDeclared, current.props, current.endpointId);
  const merged: Record<string, unknown> = {};
  for (const [name, prop] of Object.entries(description.props)) {
    if (prop.type === HTTP_INTERFACE || prop.type === "$.service.db" || prop.type === "alert") continue;
    if (given && name in given) merged[name] = given[name];
    else if (prop.type === "app") merged[name] = current.props[name];
    else if (opened[name] !== undefined) merged[name] = opened[name];
  }
  // Dynamic props: values given or kept for props additionalProps() returns with these values.
  let dynamic: Record<string, PropDescription> = {};
  if (description.hasAdditionalProps) {
    const configured: Record<string, unknown> = { ...merged };
    for (const name of Object.keys(dynamicPropsOf(current.meta))) {
      if (!(name in description.props) && opened[name] !== undefined) configured[name] = opened[name];
    }
    for (const [name, value] of Object.entries(given ?? {})) {
      if (!(name in description.props)) configured[name] = value;
    }
    const previousDefs = component.id !== previous.id ? description.props : oldDeclared;
    dynamic = await additionalPropsFor(ctx, workspaceId, component, configured, previousDefs, {
      bounded: false,
    });
    // Values of props that no longer exist are dropped, unless given now (then unknown_prop).
    for (const [name, value] of Object.entries(configured)) {
      if (name in dynamic || (given && name in given)) merged[name] = value;
    }
  }
  const meta = withDynamicProps(current.meta, dynamic);
  return { props: await prepareProps(ctx, workspaceId, finalProps(description, dynamic), merged), meta };
}

/**
 * Updates a source: code, props, name and/or `active`. When the instance changes (code, props or
 * endpoint), `deactivate()` on the running instance, then `activate()` on the new one against
 * staged db writes; a failing `activate()` puts the old instance back. Same id. @internal
 */
export async function updateSource(
  ctx: EngineContext,
  workspaceId: string,
  idOrSlug: string,
  input: UpdateInput,
): Promise<SourceView> {
  const { id } = await sourceOrThrow(ctx, workspaceId, idOrSlug);
  return ctx.mounts.exclusive(
    id,
    async () => {
      // Runs before this change store their events first (their store work is outside the queue).
      await ctx.mounts.settled(id);
      // Read again inside the queue: an earlier queued change may have changed it.
      const current = await sourceOrThrow(ctx, workspaceId, id);
      const previous = await componentOrThrow(ctx, workspaceId, current.savedComponentId);
      const component = (await chosenComponent(ctx, workspaceId, input)) ?? previous;
      const description = component.description;
      if (description.type !== "source")
        throw new HooklineError("bad_request", "only sources can be deployed");
      const { props, meta } = await updatedProps(ctx, current, previous, component, input.props);
      const endpointId = hasHttpInterface(description.props)
        ? (current.endpointId ?? newId("en", ctx.clock.now()))
        : undefined;
      const next: MountTarget = { id, workspaceId, props, endpointId, meta };
      const changedInstance =
        component.id !== previous.id || input.props !== undefined || endpointId !== current.endpointId;
      const active = input.active ?? current.active;

      const results: InvocationResult[] = [];
      // 1. deactivate() the running instance (when it is active and something changes).
      if (current.active && (changedInstance || !active)) {
        const deactivated = await runHook(ctx, await ctx.mounts.mounted(current), current, "deactivate");
        results.push(deactivated);
        if (deactivated.error) {
          await writeLogs(ctx, workspaceId, id, deactivated.logs);
          throw hookError("deactivate", deactivated);
        }
      }
      // 2. activate() the new instance with staged db writes, or the same one when only reactivating.
      const staged: StagedDb = new Map();
      let fresh: MountedComponent | undefined;
      if (active && (changedInstance || !current.active)) {
        if (changedInstance) fresh = await ctx.mounts.mount(next, component, staged);
        const activated = await runHook(ctx, fresh ?? (await ctx.mounts.mounted(current)), next, "activate");
        results.push(activated);
        if (activated.error) {
          fresh?.dispose();
          // Put the old instance back the way it was.
          if (current.active)
            results.push(await runHook(ctx, await ctx.mounts.mounted(current), current, "activate"));
          for (const result of results) await writeLogs(ctx, workspaceId, id, result.logs);
          throw hookError("activate", activated);
        }
      }
      const patch: Parameters<Store["deployedComponents"]["update"]>[2] = {
        savedComponentId: component.id,
        props,
        active,
        endpointId: endpointId ?? null,
        meta: meta ?? null,
        customResponse: hasCustomResponse(description.props),
      };
      if (input.name !== undefined && input.name !== current.name) {
        const others = (await ctx.store.deployedComponents.list(workspaceId)).filter((d) => d.id !== id);
        patch.name = input.name;
        patch.slug = uniqueSlug(
          input.name,
          others.map((d) => d.slug),
        );
      }
      const updated = await ctx.store.deployedComponents.update(workspaceId, id, patch);
      if (!updated) throw new HooklineError("not_found", `No source ${idOrSlug} in this workspace`);
      ctx.endpoints.forget(id);
      await flushStaged(ctx.store, id, staged);
      fresh?.dispose();
      if (changedInstance) ctx.mounts.unmount(id);
      await recordHooks(ctx, updated, description, results);
      await scheduleTimer(ctx, updated, description);
      const change =
        changedInstance || input.name !== undefined ? "updated" : active ? "activated" : "deactivated";
      ctx.notify("source", { workspaceId, sourceId: id, change });
      return sourceView(updated, component, ctx.baseUrl);
    },
    { bounded: false },
  );
}

/**
 * Deletes a source: `deactivate()` when it is active (a failure is a warning, never a stop), then
 * its events, timer and row (the store removes its db, logs and subscriptions with it). @internal
 */
export async function deleteSource(
  ctx: EngineContext,
  workspaceId: string,
  idOrSlug: string,
): Promise<{ warnings: string[] }> {
  const { id } = await sourceOrThrow(ctx, workspaceId, idOrSlug);
  return ctx.mounts.exclusive(
    id,
    async () => {
      // Runs before the delete store their events first (their store work is outside the queue).
      await ctx.mounts.settled(id);
      const source = await sourceOrThrow(ctx, workspaceId, id);
      const warnings: string[] = [];
      if (source.active) {
        try {
          const result = await runHook(ctx, await ctx.mounts.mounted(source), source, "deactivate");
          if (result.error) warnings.push(`deactivate() failed: ${result.error.message}`);
        } catch (error) {
          warnings.push(`deactivate() could not run: ${(error as Error).message}`);
        }
      }
      ctx.mounts.unmount(id);
      await ctx.store.events.delete(workspaceId, id);
      await ctx.store.timers.delete(id);
      await ctx.store.deployedComponents.delete(workspaceId, id);
      ctx.endpoints.forget(id);
      ctx.notify("source", { workspaceId, sourceId: id, change: "deleted" });
      return { warnings };
    },
    { bounded: false },
  );
}
