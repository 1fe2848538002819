/**
 * Prop values and dynamic props: validating and sealing configured values, asking a component's
 * async `options()` of a prop, and running `additionalProps()` (SPEC's `reloadProps`) with the
 * values configured so far. Every call into a sandbox here goes through the invocation queue
 * (`mounts.withScratch`).
 */
import { HooklineError, type PropDescription, validatePropValues } from "@hookline/core";
import type { OptionsArgs } from "@hookline/runtime";
import type { SavedComponent } from "@hookline/store";
import { checkAppProps } from "./apps.js";
import { componentOrThrow, type EngineContext, problemsMessage, sourceOrThrow } from "./context.js";
import type { MountTarget } from "./mounts.js";

/**
 * Validates configured prop values against the final prop set and returns their stored form:
 * secrets sealed, app props as `{ authProvisionId }` of a checked account. 422
 * `invalid_prop_value` naming each prop; `account_required`, `invalid_account` for app props.
 * @internal
 */
export async function prepareProps(
  ctx: Pick<EngineContext, "apps" | "box">,
  workspaceId: string,
  declared: Record<string, PropDescription>,
  given: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const { values, problems } = validatePropValues(declared, given);
  if (problems.length > 0) {
    throw new HooklineError("invalid_prop_value", `Invalid props: ${problemsMessage(problems)}`, {
      problems,
    });
  }
  // App props: a connected account of the right app, unless the app needs none (apps.ts).
  const stored: Record<string, unknown> = await checkAppProps(ctx.apps, workspaceId, declared, values);
  for (const [name, value] of Object.entries(values)) {
    const prop = declared[name];
    if (prop?.type === "app") continue;
    if (prop?.secret && typeof value === "string") stored[name] = ctx.box.seal(value);
    else stored[name] = value;
  }
  return stored;
}

/**
 * Runs `additionalProps(previous)` with the values configured so far and returns the props it
 * adds (none when the component has no additionalProps). A `ConfigurationError` is
 * `configuration_error` (422) with the component's message as is. A deploy or update passes
 * `bounded: false`: a lifecycle change is never refused as `source_busy`. @internal
 */
export async function additionalPropsFor(
  ctx: Pick<EngineContext, "mounts">,
  workspaceId: string,
  component: SavedComponent,
  configured: Record<string, unknown>,
  previous: Record<string, PropDescription>,
  options?: { bounded?: boolean },
): Promise<Record<string, PropDescription>> {
  const description = component.description;
  if (!description.hasAdditionalProps) return {};
  // A scratch sandbox of its own (its db is empty): the values are not a source's yet.
  const target: MountTarget = {
    id: `${component.id}:reload`,
    workspaceId,
    props: configured,
    endpointId: undefined,
  };
  return ctx.mounts.withScratch(
    target,
    component,
    async (mounted) => {
      const result = await mounted.additionalProps(previous);
      if (result.error) {
        const code = result.error.code === "configuration_error" ? "configuration_error" : "bad_request";
        throw new HooklineError(code, result.error.message, { error: result.error, logs: result.logs });
      }
      return (result.returnValue ?? {}) as Record<string, PropDescription>;
    },
    options,
  );
}

/** What `sources.options` starts from: a saved component or a deployed source. */
export interface OptionsTarget {
  /** A saved component's id, or a registry key (`key` or `key@version`). */
  componentId?: string;
  /** A deployed source's id or slug: its configured values (and its db) are the base. */
  sourceId?: string;
}

/**
 * The async options of a prop given the values configured so far (unvalidated: the form is being
 * filled). From a source, its stored values (and its db) are the base. @internal
 */
export async function propOptions(
  ctx: EngineContext,
  componentFor: (workspaceId: string, ref: string) => Promise<SavedComponent>,
  workspaceId: string,
  target: OptionsTarget,
  prop: string,
  args: OptionsArgs & { props?: Record<string, unknown> } = {},
): Promise<{ options: unknown[]; context?: unknown }> {
  let component: SavedComponent;
  let base: MountTarget;
  if (target.sourceId) {
    const source = await sourceOrThrow(ctx, workspaceId, target.sourceId);
    component = await componentOrThrow(ctx, workspaceId, source.savedComponentId);
    base = source;
  } else if (target.componentId) {
    component = await componentFor(workspaceId, target.componentId);
    base = { id: `${component.id}:options`, workspaceId, props: {}, endpointId: undefined };
  } else throw new HooklineError("bad_request", "options need a componentId or a sourceId");
  const description = component.description;
  if (!(prop in description.props) && !description.hasAdditionalProps) {
    throw new HooklineError("not_found", `The component has no prop "${prop}"`);
  }
  // Earlier configured values (unvalidated: the user is still filling the form).
  const props = { ...base.props, ...(args.props ?? {}) };
  const { props: _omit, ...optionArgs } = args;
  return ctx.mounts.withScratch({ ...base, props }, component, async (mounted) => {
    const result = await mounted.options(prop, optionArgs);
    if (result.error) {
      const code =
        result.error.code === "configuration_error"
          ? "configuration_error"
          : result.error.code === "unknown_prop"
            ? "not_found"
            : "bad_request";
      throw new HooklineError(code, result.error.message, { error: result.error, logs: result.logs });
    }
    return result.returnValue as { options: unknown[]; context?: unknown };
  });
}
