/** `pd subscriptions create <emitter> <listener> [--event-name N] | delete <emitter> <listener>`. */
import { type ApiClient, resolveSource, resolveWebhook } from "../_api.js";
import { _flag, _required, _str } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { CliError, out, printJson, style } from "../_output.js";

/**
 * An id as given (`dc_`, `wh_`, ...), or the id of the source with that name; a listener may
 * also be a webhook's name.
 * @internal
 */
async function _id(client: ApiClient, ref: string, webhooks = false): Promise<string> {
  if (/^(dc|wh|sc)_/.test(ref)) return ref;
  try {
    return (await resolveSource(client, ref)).id;
  } catch (error) {
    if (!webhooks || !(error instanceof CliError) || error.code !== "not_found") throw error;
    try {
      return (await resolveWebhook(client, ref)).id;
    } catch (second) {
      if (second instanceof CliError && second.code === "not_found") {
        throw new CliError("not_found", `No source or webhook named ${ref} in this workspace`);
      }
      throw second;
    }
  }
}

export default defineCommand({
  name: "subscriptions",
  summary: "Subscribe a listener (webhook or source) to an emitter's events, or remove that subscription.",
  usage:
    "subscriptions create <emitter> <listener> [--event-name NAME] | subscriptions delete <emitter> <listener> [--event-name NAME] [--json]",
  options: { "event-name": { type: "string" }, ..._jsonOption, ..._profileOption },
  async run(args) {
    const action = _required(args, 0, this.usage);
    if (action !== "create" && action !== "delete") {
      throw new CliError("usage", `unknown action "${action}"; usage: pd ${this.usage}`);
    }
    const usage = `subscriptions ${action} <emitter> <listener> [--event-name NAME]`;
    const client = _client(args);
    const emitter = await _id(client, _required(args, 1, usage));
    const listener = await _id(client, _required(args, 2, usage), true);
    const eventName = _str(args, "event-name");
    const body = {
      emitter_id: emitter,
      listener_id: listener,
      ...(eventName ? { event_name: eventName } : {}),
    };
    const json = _flag(args, "json");
    if (action === "create") {
      const sub = await client.request<{ id: string }>("POST", "/v1/subscriptions", body);
      if (json) printJson(sub);
      else
        out(
          `${style.green("✔")} Subscribed ${listener} to ${emitter}${eventName ? ` [${eventName}]` : ""} (${sub.id})`,
        );
      return;
    }
    const result = await client.request("DELETE", `/v1/subscriptions?${new URLSearchParams(body)}`);
    if (json) printJson(result);
    else
      out(
        `${style.green("✔")} Unsubscribed ${listener} from ${emitter}${eventName ? ` [${eventName}]` : ""}`,
      );
  },
});
