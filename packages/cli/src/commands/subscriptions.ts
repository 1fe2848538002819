/** `pd subscriptions create <emitter> <listener> [--event-name N] | delete <emitter> <listener>`. */
import { type ApiClient, resolveSource, resolveWebhook } from "../_api.js";
import { _flag, _required, _str } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { CliError, out, printJson, style } from "../_output.js";

/** The emitter: a source id, name slug or name (a workflow's `p_` id as given). @internal */
async function _emitter(client: ApiClient, ref: string): Promise<string> {
  if (/^p_[0-9A-Za-z]+$/.test(ref)) return ref;
  return (await resolveSource(client, ref)).id;
}

export default defineCommand({
  name: "subscriptions",
  summary: "Subscribe a webhook to a source's events (all, or one channel), or remove that subscription.",
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
    const emitter = await _emitter(client, _required(args, 1, usage));
    const listener = (await resolveWebhook(client, _required(args, 2, usage))).id;
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
