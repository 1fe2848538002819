/**
 * What both runtime modes share: turning bundler and sandbox errors into `HooklineError`s, and
 * describing a component from the definition its sandbox serialized.
 */
import {
  type ComponentDescription,
  describeComponent,
  describeProblems,
  HooklineError,
} from "@hookline/core";
import { BundleError } from "./bundler/esbuild-bundler.js";
import type { Bundler } from "./bundler/types.js";
import { Sandbox } from "./sandbox/sandbox.js";
import type { Limits, LoadedComponent, LoadInput } from "./types.js";

/** @internal */
export function toHooklineError(error: unknown): HooklineError {
  if (error instanceof BundleError)
    return new HooklineError(error.code, error.message, {
      errors: error.errors,
      ...(error.missingFiles.length > 0 ? { missingFiles: error.missingFiles } : {}),
    });
  const code = (error as { code?: unknown }).code;
  if (code === "load_failed") {
    const stack = (error as Error).stack;
    return new HooklineError("load_failed", (error as Error).message, stack ? { stack } : undefined);
  }
  return error instanceof HooklineError ? error : new HooklineError("internal_error", String(error));
}

/** @internal */
export function describeLoaded(definition: unknown): ComponentDescription {
  const { description, problems } = describeComponent(definition);
  if (!description) {
    const summary = describeProblems(problems, "(component)");
    throw new HooklineError("invalid_component", `The component is not valid: ${summary}`, { problems });
  }
  return description;
}

/** Where a bundle's inline source map starts (esbuild writes it last). */
const SOURCE_MAP = "\n//# sourceMappingURL=data:application/json;base64,";

/**
 * SPEC (Versioning 3): a version in an import (`pkg@1.2.3`, `pkg@^1.2`) applies to sources only.
 * An action that names one gets an `action_version_pin` warning per package; the import still
 * resolves as written. @internal
 */
export function withPinWarnings(
  description: ComponentDescription,
  packages: LoadedComponent["packages"],
): ComponentDescription {
  // A package served from the cache because the registry could not be reached (any kind).
  const offline = packages
    .filter((p) => p.offline !== undefined)
    .map((p) => ({
      code: "package_from_cache",
      path: `imports.${p.name}`,
      message: `${p.name}@${p.version} came from the package cache: ${p.offline}; a newer version in the range may exist`,
    }));
  if (offline.length > 0)
    description = { ...description, warnings: [...(description.warnings ?? []), ...offline] };
  if (description.type !== "action") return description;
  const pins = packages.filter((p) => p.range !== undefined);
  if (pins.length === 0) return description;
  const warnings = pins.map((p) => ({
    code: "action_version_pin",
    path: `imports.${p.name}`,
    message: `"${p.name}@${p.range}": a version in an import applies to sources only (SPEC); this action's import resolved to ${p.name}@${p.version} as written, but do not rely on the pin`,
  }));
  return { ...description, warnings: [...(description.warnings ?? []), ...warnings] };
}

/**
 * A load that failed while a bundled package loads a native addon failed because of it (the
 * sandbox runs no `.node` files): `native_module_unsupported`, naming the packages, at deploy.
 */
function nativeError(error: unknown, native: string[] | undefined): HooklineError | undefined {
  if (!native || native.length === 0) return undefined;
  if (!(error instanceof HooklineError && error.code === "load_failed")) return undefined;
  // Only a failure about the addon itself (another one, say a missing module, stays load_failed).
  if (!/\.node\b|native|binding|addon|Cannot find module '[^']*-(linux|darwin|win32)-/i.test(error.message))
    return undefined;
  const names = native.map((n) => `"${n}"`).join(", ");
  return new HooklineError(
    "native_module_unsupported",
    `${names} ${native.length === 1 ? "needs" : "need"} a native addon (.node), which cannot run in the Hookline sandbox: ${error.message}`,
    { packages: native, ...(error.details as object | undefined) },
  );
}

/** A component that loaded although a package references a native addon: said as a warning. */
function withNativeWarnings(
  description: ComponentDescription,
  native: string[] | undefined,
): ComponentDescription {
  if (!native || native.length === 0) return description;
  const warnings = native.map((name) => ({
    code: "native_addon_skipped",
    path: `imports.${name}`,
    message: `"${name}" references a native addon (.node), which cannot run in the sandbox; it loaded without it, and fails with MODULE_NOT_FOUND where it needs it`,
  }));
  return { ...description, warnings: [...(description.warnings ?? []), ...warnings] };
}

/**
 * Evaluates a bundle in a fresh sandbox and returns its serialized definition (what
 * {@link describeLoaded} checks). Throws `load_failed` when the component's module code throws.
 * The bundle is evaluated without its inline source map (up to half of its text, needed only to
 * map an error's stack); when the module code throws with a stack into the bundle, it is
 * evaluated again with the map, so the error names the component's own files and lines.
 * @internal
 */
export async function describeBundle(bundle: string, limits: Limits): Promise<unknown> {
  const at = bundle.lastIndexOf(SOURCE_MAP);
  if (at === -1) return evaluate(bundle, limits);
  try {
    return await evaluate(bundle.slice(0, at), limits);
  } catch (error) {
    if (!(error instanceof HooklineError && error.code === "load_failed")) throw error;
    const stack = (error.details as { stack?: unknown } | undefined)?.stack;
    if (typeof stack !== "string" || !stack.includes("component.bundle.js:")) throw error;
    return evaluate(bundle, limits);
  }
}

async function evaluate(bundle: string, limits: Limits): Promise<unknown> {
  let created: Awaited<ReturnType<typeof Sandbox.create>>;
  try {
    created = await Sandbox.create({ id: "load", bundle, limits, bridges: {} });
  } catch (error) {
    throw toHooklineError(error);
  }
  created.sandbox.dispose();
  return created.definition;
}

/**
 * `Runtime.load` of both modes: checks the file name, bundles, and describes the bundle once per
 * content hash (`describe` evaluates it: in this thread or in a pool thread).
 * @internal
 */
export async function loadComponent(
  bundler: () => Promise<Bundler>,
  input: LoadInput,
  descriptions: {
    get(hash: string): ComponentDescription | undefined;
    set(hash: string, d: ComponentDescription): unknown;
  },
  describe: (bundle: string) => Promise<unknown>,
): Promise<LoadedComponent> {
  if (!/\.(m|c)?(j|t)s$/.test(input.filename)) {
    throw new HooklineError(
      "bad_request",
      `A component file is .js, .mjs, .cjs or .ts, got "${input.filename}"`,
    );
  }
  let output: Awaited<ReturnType<Bundler["bundle"]>>;
  try {
    output = await (await bundler()).bundle(input);
  } catch (error) {
    throw toHooklineError(error);
  }
  let description = descriptions.get(output.hash);
  if (!description) {
    let definition: unknown;
    try {
      definition = await describe(output.code);
    } catch (error) {
      throw nativeError(error, output.native) ?? error;
    }
    description = withNativeWarnings(
      withPinWarnings(describeLoaded(definition), output.packages),
      output.native,
    );
    descriptions.set(output.hash, description);
  }
  return { bundle: output.code, hash: output.hash, description, packages: output.packages };
}
