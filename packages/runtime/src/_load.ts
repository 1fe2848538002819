/**
 * What both runtime modes share: turning bundler and sandbox errors into `HooklineError`s, and
 * describing a component from the definition its sandbox serialized.
 */
import { type ComponentDescription, describeComponent, HooklineError } from "@hookline/core";
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
    const summary = problems.map((p) => `${p.path || "(component)"}: ${p.message}`).join("; ");
    throw new HooklineError("invalid_component", `The component is not valid: ${summary}`, { problems });
  }
  return description;
}

/**
 * Evaluates a bundle in a fresh sandbox and returns its serialized definition (what
 * {@link describeLoaded} checks). Throws `load_failed` when the component's module code throws.
 * @internal
 */
export async function describeBundle(bundle: string, limits: Limits): Promise<unknown> {
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
    description = describeLoaded(await describe(output.code));
    descriptions.set(output.hash, description);
  }
  return { bundle: output.code, hash: output.hash, description, packages: output.packages };
}
