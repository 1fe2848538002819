/** `pd list sources|webhooks|subscriptions|components|registry|workflows`. */
import { listAll } from "../_api.js";
import { _flag, _required } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { CliError, printJson, printTable } from "../_output.js";
import { _didYouMean } from "../_suggest.js";

type Row = Record<string, unknown>;

/** What each listing shows: its route and columns (a field, or `[header, field]`). */
const KINDS: Record<string, { path: string; columns: Array<string | [string, string]> }> = {
  // The slug is what other commands take (two sources can share a name, never a slug).
  sources: { path: "/v1/sources", columns: ["id", ["slug", "name_slug"], "name", "active", "endpoint_url"] },
  webhooks: { path: "/v1/webhooks", columns: ["id", "url", "name", "active"] },
  subscriptions: { path: "/v1/subscriptions", columns: ["id", "emitter_id", "listener_id", "event_name"] },
  components: { path: "/v1/components", columns: ["id", "key", "name", "version", "type"] },
  registry: { path: "/v1/components/registry", columns: ["key", "version", "name", "visibility", "id"] },
  workflows: { path: "/v1/workflows", columns: ["id", "name", "active"] },
};

export default defineCommand({
  name: "list",
  summary:
    "List sources, webhooks, subscriptions, saved components, published (registry) components or workflows.",
  examples: [
    "pd list sources        # id, slug, name, active, endpoint",
    "pd list webhooks --json",
    "pd list registry",
  ],
  usage: "list sources|webhooks|subscriptions|components|registry|workflows [--json] [-p PROFILE]",
  options: { ..._jsonOption, ..._profileOption },
  async run(args) {
    const kind = _required(args, 0, this.usage);
    const spec = KINDS[kind];
    if (!spec)
      throw new CliError(
        "usage",
        `cannot list "${kind}"${_didYouMean(kind, Object.keys(KINDS))}: use one of ${Object.keys(KINDS).join(", ")}`,
      );
    const items = await listAll<Row>(_client(args), spec.path);
    if (_flag(args, "json")) printJson(items);
    else {
      const columns = spec.columns.map((c): [string, string] => (typeof c === "string" ? [c, c] : c));
      printTable(
        columns.map(([header]) => header),
        items.map((item) => columns.map(([, field]) => item[field] as string)),
      );
    }
  },
});
