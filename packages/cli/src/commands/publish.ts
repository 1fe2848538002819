/** `pd publish <file|url|sc_id> [--registry]`: publish a component to the workspace or the public registry. */
import { _flag, _required } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { CliError, note, out, printJson, style } from "../_output.js";
import { _classify } from "../_target.js";
import { _componentBody } from "./deploy.js";

/** A published component as `POST /v1/components/registry` returns it. */
interface PublishedJson {
  id: string;
  key: string;
  name: string;
  version: string;
  visibility: "private" | "public";
  code_hash: string;
  type?: "source" | "action";
}

export default defineCommand({
  name: "publish",
  summary:
    "Publish a component (an action for workflows, or a source) under its key and version: private to the workspace, or public with --registry (strict: warnings are refused).",
  examples: [
    "pd publish greet.mjs               # private: this workspace only",
    "pd publish new-item.mjs --registry # public: every workspace",
  ],
  usage: "publish <file|url|sc_id> [--registry] [--json] [-p PROFILE]",
  options: { registry: { type: "boolean" }, ..._jsonOption, ..._profileOption },
  async run(args) {
    const raw = _required(args, 0, this.usage);
    const target = _classify(raw);
    if (target.kind === "key") {
      // Not a file, URL or id: most likely a mistyped file name.
      throw new CliError(
        "file_not_found",
        `cannot read ${raw}: ENOENT (publish takes a file, a URL or an sc_ id)`,
      );
    }
    const json = _flag(args, "json");
    const visibility = _flag(args, "registry") ? "public" : "private";
    const client = _client(args);
    // The public registry is strict: SPEC rules Pipedream does not enforce are refused there.
    const body = {
      ...(await _componentBody(target, json)),
      visibility,
      ...(visibility === "public" ? { strict: true } : {}),
    };
    if (!json) note(style.dim(`Publishing (${visibility})...`, process.stderr));
    const published = await client.request<PublishedJson>("POST", "/v1/components/registry", body);
    if (json) {
      printJson(published);
      return;
    }
    const where = published.visibility === "public" ? "the public registry" : "this workspace (private)";
    out(
      `${style.green("✔")} Published ${style.bold(published.name)} as ${style.bold(`${published.key}@${published.version}`)} to ${where} (${published.id})`,
    );
    const ref = `${published.key}@${published.version}`;
    if (published.type === "action") out(`  workflows use it by its key: ${ref}`);
    else out(`  deploy it: pd deploy ${ref}`);
  },
});
