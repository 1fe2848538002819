/**
 * `pd deploy <file|registry key|url>`: deploy a component file (relative imports bundled), a
 * registry component or a URL as a source. On a terminal, missing required props are asked for.
 */
import type { ApiClient, SourceJson } from "../_api.js";
import { _flag, _required, _str, _strs, type ParsedArgs } from "../_args.js";
import { bundleComponent } from "../_bundle.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { _askMissingProps, type PropJson } from "../_configure.js";
import { CliError, note, out, printJson, style } from "../_output.js";
import { _createPrompter, _isInteractive } from "../_prompt.js";
import { collectProps } from "../_props.js";
import { _classify, _isUrl, type Target } from "../_target.js";

export { _isUrl };

/** The code part of a request body for a file or URL target. @internal */
export async function _codeBody(target: string, quiet = false): Promise<Record<string, string>> {
  if (_isUrl(target)) return { component_url: target };
  if (!quiet) note(style.dim(`Bundling ${target}...`, process.stderr));
  const bundled = await bundleComponent(target);
  return { component_code: bundled.code, filename: bundled.filename };
}

/** The component part of a `POST /v1/sources` body for any target. @internal */
export async function _componentBody(target: Target, quiet = false): Promise<Record<string, string>> {
  switch (target.kind) {
    case "file":
      return _codeBody(target.path, quiet);
    case "url":
      return { component_url: target.url };
    case "key":
      return { component_key: target.ref };
    case "id":
      return { component_id: target.id };
  }
}

/** A saved or registry component as the API returns it. */
export interface ComponentJson {
  id: string;
  key: string | null;
  name: string;
  type?: string;
  version: string;
  visibility?: string;
  configurable_props: PropJson[];
}

/** Deploys `target` with the options of `args` (no questions); used by `pd dev` too. @internal */
export async function _deploy(
  client: ApiClient,
  target: string,
  args: ParsedArgs,
  quiet = false,
): Promise<SourceJson> {
  const body: Record<string, unknown> = { ...(await _componentBody(_classify(target), quiet)) };
  const name = _str(args, "name");
  if (name) body.name = name;
  const props = collectProps(_strs(args, "prop"), _str(args, "props-file"));
  if (Object.keys(props).length > 0) body.configured_props = props;
  if (!quiet) note(style.dim("Deploying...", process.stderr));
  return client.request<SourceJson>("POST", "/v1/sources", body);
}

/**
 * Deploys on a terminal: finds the component's props first (saving file or URL code as a
 * component, or reading the registry entry of a key), asks for the missing required ones, then
 * deploys that component. Returns the saved component instead when it is an action.
 * @internal
 */
async function _deployInteractive(
  client: ApiClient,
  target: Target,
  args: ParsedArgs,
): Promise<SourceJson | ComponentJson> {
  let component: ComponentJson;
  let ref: Record<string, string>;
  if (target.kind === "key") {
    note(style.dim(`Looking up ${target.ref} in the registry...`, process.stderr));
    const query = target.version ? `?version=${encodeURIComponent(target.version)}` : "";
    component = await client.request<ComponentJson>(
      "GET",
      `/v1/components/registry/${encodeURIComponent(target.key)}${query}`,
    );
    ref = { component_key: target.ref };
  } else if (target.kind === "id") {
    component = await client.request<ComponentJson>("GET", `/v1/components/${encodeURIComponent(target.id)}`);
    ref = { component_id: component.id };
  } else {
    const code = await _componentBody(target);
    note(style.dim("Saving the component...", process.stderr));
    component = await client.request<ComponentJson>("POST", "/v1/components", code);
    if (component.type === "action") return component;
    ref = { component_id: component.id };
  }
  const given = collectProps(_strs(args, "prop"), _str(args, "props-file"));
  const prompter = _createPrompter();
  let props: Record<string, unknown>;
  try {
    // A registry component may belong to another workspace: its options are asked for by key
    // (which the server resolves through the registry), not by an id this workspace cannot read.
    const optionsRef =
      target.kind === "key" && component.key ? `${component.key}@${component.version}` : component.id;
    props = await _askMissingProps(client, optionsRef, component.configurable_props, given, prompter);
  } finally {
    prompter.close();
  }
  const body: Record<string, unknown> = { ...ref };
  const name = _str(args, "name");
  if (name) body.name = name;
  if (Object.keys(props).length > 0) body.configured_props = props;
  note(style.dim("Deploying...", process.stderr));
  return client.request<SourceJson>("POST", "/v1/sources", body);
}

/** Whether an API error says the code is an action (which is saved, not deployed). @internal */
function _isActionError(error: unknown): boolean {
  return error instanceof CliError && error.code === "bad_request" && /\baction\b/.test(error.message);
}

/**
 * Prints a deployed source for people, by its name slug (what later commands take). A name that
 * another source has already is said so: `Deployed hello-1 (dc_...), name hello was taken`.
 * @internal
 */
export async function _printSource(source: SourceJson, verb: string): Promise<void> {
  // Only a numbered slug can come from a taken name; @hookline/core (slow to load) is read then.
  const numbered = /-\d+$/.test(source.name_slug);
  const { slugify } = numbered ? await import("@hookline/core") : { slugify: () => source.name_slug };
  const taken = slugify(source.name) !== source.name_slug ? `, name ${source.name} was taken` : "";
  out(
    `${style.green("✔")} ${verb} ${style.bold(source.name_slug)} (${source.id})${taken}${source.active ? "" : " [inactive]"}`,
  );
  if (source.endpoint_url) out(`  endpoint: ${style.cyan(source.endpoint_url)}`);
}

/** Prints an action that was saved instead of deployed. @internal */
function _printAction(component: ComponentJson, target: string, json: boolean): void {
  if (json) {
    printJson(component);
    return;
  }
  out(
    `${style.green("✔")} Saved action ${style.bold(component.name)} (${component.id}, v${component.version})`,
  );
  out(`  actions are not deployed as sources; publish it with: pd publish ${target}`);
}

/** A registry key that is not found may have been meant as a file: say both. @internal */
function _explainMissingKey(error: unknown, target: Target): never {
  if (error instanceof CliError && error.code === "not_found" && target.kind === "key") {
    throw new CliError(
      "not_found",
      `${error.message} (and there is no file named ${target.ref} here)`,
      error.details,
    );
  }
  throw error;
}

export default defineCommand({
  name: "deploy",
  summary: "Deploy a component file (relative imports bundled), a registry key or a URL as a source.",
  examples: [
    "pd deploy hello.mjs --name hello",
    "pd deploy hello.mjs --prop greeting=hi --props-file props.json",
    "pd deploy http-new-requests@0.1.0 --name inbox   # a registry key",
    "pd deploy https://example.com/components/hello.mjs",
  ],
  usage:
    "deploy <file|registry key[@version]|url|sc_id> [--name NAME] [--prop key=value ...] [--props-file FILE] [--no-input] [--json] [-p PROFILE]",
  options: {
    name: { type: "string" },
    "no-input": { type: "boolean" },
    prop: { type: "string", multiple: true },
    "props-file": { type: "string" },
    ..._jsonOption,
    ..._profileOption,
  },
  async run(args) {
    const raw = _required(args, 0, this.usage);
    const target = _classify(raw);
    const client = _client(args);
    const json = _flag(args, "json");
    let result: SourceJson | ComponentJson;
    try {
      if (_isInteractive() && !_flag(args, "no-input"))
        result = await _deployInteractive(client, target, args);
      else result = await _deploy(client, raw, args, json);
    } catch (error) {
      if (!_isActionError(error) || (target.kind !== "file" && target.kind !== "url")) {
        _explainMissingKey(error, target);
      }
      // Actions are workflow steps: they are saved as components and run on demand.
      result = await client.request<ComponentJson>("POST", "/v1/components", await _codeBody(raw, true));
    }
    if (!("component_id" in result)) {
      _printAction(result, raw, json);
      return;
    }
    if (json) printJson(result);
    else await _printSource(result, "Deployed");
  },
});
