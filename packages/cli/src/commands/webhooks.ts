/** `pd webhooks create <url> [--name N] | delete <id>`. */
import { resolveWebhook, type WebhookJson } from "../_api.js";
import { _flag, _required, _str } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { CliError, out, printJson, style } from "../_output.js";

export default defineCommand({
  name: "webhooks",
  summary: "Create or delete a webhook (a URL events are delivered to, signed).",
  usage: "webhooks create <url> [--name NAME] [--description TEXT] | webhooks delete <id|name> [--json]",
  options: { name: { type: "string" }, description: { type: "string" }, ..._jsonOption, ..._profileOption },
  async run(args) {
    const action = _required(args, 0, this.usage);
    const json = _flag(args, "json");
    const client = _client(args);
    if (action === "create") {
      const url = _required(args, 1, "webhooks create <url> [--name NAME]");
      const name = _str(args, "name");
      const description = _str(args, "description");
      const webhook = await client.request<WebhookJson>("POST", "/v1/webhooks", {
        url,
        ...(name ? { name } : {}),
        ...(description ? { description } : {}),
      });
      if (json) printJson(webhook);
      else {
        out(`${style.green("✔")} Created webhook ${style.bold(webhook.id)} → ${webhook.url}`);
        out(`  subscribe it: pd subscriptions create <source> ${webhook.id}`);
      }
      return;
    }
    if (action === "delete") {
      const id = (await resolveWebhook(client, _required(args, 1, "webhooks delete <id|name>"))).id;
      const result = await client.request("DELETE", `/v1/webhooks/${encodeURIComponent(id)}`);
      if (json) printJson({ id, ...(result as object) });
      else out(`${style.green("✔")} Deleted webhook ${id}`);
      return;
    }
    throw new CliError("usage", `unknown action "${action}"; usage: pd ${this.usage}`);
  },
});
