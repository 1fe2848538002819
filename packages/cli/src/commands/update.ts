/** `pd update <id|name>`: new code, props, name or active state. */
import { resolveSource, type SourceJson } from "../_api.js";
import { _flag, _required, _str, _strs } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { CliError, printJson } from "../_output.js";
import { collectProps } from "../_props.js";
import { _codeBody, _printSource } from "./deploy.js";

export default defineCommand({
  name: "update",
  summary: "Update a source: new code, prop values, name, or activate/deactivate it.",
  examples: [
    "pd update hello --prop greeting=hey",
    "pd update hello --code hello.mjs",
    "pd update hello --deactivate",
  ],
  usage:
    "update <id|name> [--code FILE|URL] [--name NAME] [--prop key=value ...] [--props-file FILE] [--activate|--deactivate] [--json]",
  options: {
    code: { type: "string" },
    name: { type: "string" },
    prop: { type: "string", multiple: true },
    "props-file": { type: "string" },
    activate: { type: "boolean" },
    deactivate: { type: "boolean" },
    ..._jsonOption,
    ..._profileOption,
  },
  async run(args) {
    const ref = _required(args, 0, this.usage);
    if (_flag(args, "activate") && _flag(args, "deactivate")) {
      throw new CliError("usage", "--activate and --deactivate exclude each other");
    }
    const json = _flag(args, "json");
    const body: Record<string, unknown> = {};
    const code = _str(args, "code");
    if (code) Object.assign(body, await _codeBody(code, json));
    const name = _str(args, "name");
    if (name) body.name = name;
    const props = collectProps(_strs(args, "prop"), _str(args, "props-file"));
    if (Object.keys(props).length > 0) body.configured_props = props;
    if (_flag(args, "activate")) body.active = true;
    if (_flag(args, "deactivate")) body.active = false;
    if (Object.keys(body).length === 0) {
      throw new CliError(
        "usage",
        "nothing to update: give --code, --name, --prop, --props-file, --activate or --deactivate",
      );
    }
    const client = _client(args);
    const { id } = await resolveSource(client, ref);
    const source = await client.request<SourceJson>("PUT", `/v1/sources/${id}`, body);
    if (json) printJson(source);
    else await _printSource(source, "Updated");
  },
});
