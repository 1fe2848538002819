/** `pd delete <id|name>`: delete a source. */
import { resolveSource } from "../_api.js";
import { _flag, _required } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { out, printJson, printWarnings, style } from "../_output.js";

export default defineCommand({
  name: "delete",
  summary: "Delete a source (its deactivate hook runs first).",
  examples: ["pd delete hello", "pd delete dc_01h..."],
  usage: "delete <id|name> [--json] [-p PROFILE]",
  options: { ..._jsonOption, ..._profileOption },
  async run(args) {
    const ref = _required(args, 0, this.usage);
    const client = _client(args);
    const source = await resolveSource(client, ref);
    const result = await client.request<{ deleted: boolean; warnings?: string[] }>(
      "DELETE",
      `/v1/sources/${source.id}`,
    );
    if (_flag(args, "json")) {
      printJson({ id: source.id, ...result });
      return;
    }
    printWarnings((result.warnings ?? []).map((message) => ({ code: "hook_failed", message })));
    out(`${style.green("✔")} Deleted ${style.bold(source.name)} (${source.id})`);
  },
});
