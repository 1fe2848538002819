/** `pd deploy <file|url>`: bundle a component file (or point at a URL) and deploy it as a source. */
import type { ApiClient, SourceJson } from "../_api.js";
import { _flag, _required, _str, _strs, type ParsedArgs } from "../_args.js";
import { bundleComponent } from "../_bundle.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { CliError, note, out, printJson, style } from "../_output.js";
import { collectProps } from "../_props.js";

/** Whether a deploy target is a URL rather than a file. @internal */
export function _isUrl(target: string): boolean {
  return /^https?:\/\//i.test(target);
}

/** The code part of a request body for a file or URL target. @internal */
export async function _codeBody(target: string, quiet = false): Promise<Record<string, string>> {
  if (_isUrl(target)) return { component_url: target };
  if (!quiet) note(style.dim(`Bundling ${target}...`, process.stderr));
  const bundled = await bundleComponent(target);
  return { component_code: bundled.code, filename: bundled.filename };
}

/** Deploys `target` with the options of `args`; used by `pd deploy` and `pd dev`. @internal */
export async function _deploy(
  client: ApiClient,
  target: string,
  args: ParsedArgs,
  quiet = false,
): Promise<SourceJson> {
  const body: Record<string, unknown> = { ...(await _codeBody(target, quiet)) };
  const name = _str(args, "name");
  if (name) body.name = name;
  const props = collectProps(_strs(args, "prop"), _str(args, "props-file"));
  if (Object.keys(props).length > 0) body.configured_props = props;
  if (!quiet) note(style.dim("Deploying...", process.stderr));
  return client.request<SourceJson>("POST", "/v1/sources", body);
}

/** A saved component as the API returns it. */
interface ComponentJson {
  id: string;
  name: string;
  type: string;
  version: string;
}

/** Whether an API error says the code is an action (which is saved, not deployed). @internal */
function _isActionError(error: unknown): boolean {
  return error instanceof CliError && error.code === "bad_request" && /\baction\b/.test(error.message);
}

/** Prints a deployed source for people. @internal */
export function _printSource(source: SourceJson, verb: string): void {
  out(
    `${style.green("✔")} ${verb} ${style.bold(source.name)} (${source.id})${source.active ? "" : " [inactive]"}`,
  );
  if (source.endpoint_url) out(`  endpoint: ${style.cyan(source.endpoint_url)}`);
}

export default defineCommand({
  name: "deploy",
  summary: "Deploy a component file (relative imports bundled) or URL as a source.",
  usage: "deploy <file|url> [--name NAME] [--prop key=value ...] [--props-file FILE] [--json] [-p PROFILE]",
  options: {
    name: { type: "string" },
    prop: { type: "string", multiple: true },
    "props-file": { type: "string" },
    ..._jsonOption,
    ..._profileOption,
  },
  async run(args) {
    const target = _required(args, 0, this.usage);
    const client = _client(args);
    const json = _flag(args, "json");
    let source: SourceJson;
    try {
      source = await _deploy(client, target, args, json);
    } catch (error) {
      if (!_isActionError(error)) throw error;
      // Actions are workflow steps: they are saved as components and run on demand.
      const component = await client.request<ComponentJson>(
        "POST",
        "/v1/components",
        await _codeBody(target, true),
      );
      if (json) printJson(component);
      else {
        out(
          `${style.green("✔")} Saved action ${style.bold(component.name)} (${component.id}, v${component.version})`,
        );
        out("  actions are not deployed as sources; run it from a workflow or with the engine API");
      }
      return;
    }
    if (json) printJson(source);
    else _printSource(source, "Deployed");
  },
});
