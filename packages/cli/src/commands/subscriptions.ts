/**
 * `pd subscriptions create <emitter> <listener> [--event-name N] [--filter JSON] | delete <emitter>
 * <listener> | replay <sub_id> [--since T] [--until T] [--filter JSON] [--batch N]`.
 */
import { type ApiClient, resolveSource, resolveWebhook } from "../_api.js";
import { _flag, _int, _required, _str, _time } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { CliError, note, out, printJson, style } from "../_output.js";

/** One call of `POST /v1/subscriptions/{id}/replay`. */
interface ReplayJson {
  subscription_id: string;
  webhook_id: string;
  replayed: number;
  cursor: string | null;
  done: boolean;
}

/** `pd subscriptions replay`: every batch of the window in turn, with progress on stderr. @internal */
async function _replay(client: ApiClient, args: Parameters<typeof _str>[0], json: boolean): Promise<void> {
  const usage = "subscriptions replay <sub_id> [--since 24h] [--until TIME] [--filter JSON] [--batch N]";
  const id = _required(args, 1, usage);
  const sinceText = _str(args, "since");
  const untilText = _str(args, "until");
  const filter = _str(args, "filter");
  const batch = _int(args, "batch", 1000, 1, 10_000);
  const base = {
    ...(sinceText ? { since: Math.floor(_time("since", sinceText) / 1000) } : {}),
    ...(untilText ? { until: Math.floor(_time("until", untilText) / 1000) } : {}),
    ...(filter ? { filter } : {}),
    limit: batch,
  };
  let total = 0;
  let after: string | undefined;
  let last: ReplayJson | undefined;
  for (;;) {
    last = await client.request<ReplayJson>("POST", `/v1/subscriptions/${encodeURIComponent(id)}/replay`, {
      ...base,
      ...(after ? { after } : {}),
    });
    total += last.replayed;
    if (!json) note(`  replayed ${total} so far${last.cursor ? ` (cursor ${last.cursor})` : ""}`);
    if (last.done || !last.cursor) break;
    after = last.cursor;
  }
  if (json)
    printJson({ subscription_id: id, webhook_id: last.webhook_id, replayed: total, cursor: last.cursor });
  else out(`${style.green("✔")} Replayed ${total} ${total === 1 ? "event" : "events"} to ${last.webhook_id}`);
}

/** The emitter: a source id, name slug or name (a workflow's `p_` id as given). @internal */
async function _emitter(client: ApiClient, ref: string): Promise<string> {
  if (/^p_[0-9A-Za-z]+$/.test(ref)) return ref;
  return (await resolveSource(client, ref)).id;
}

export default defineCommand({
  name: "subscriptions",
  summary:
    "Subscribe a webhook to a source's events (all, or one channel, optionally filtered), remove that subscription, or replay stored events to it.",
  usage:
    "subscriptions create <emitter> <listener> [--event-name NAME] [--filter JSON] | subscriptions delete <emitter> <listener> [--event-name NAME] | subscriptions replay <sub_id> [--since 24h] [--until TIME] [--filter JSON] [--batch N] [--json]",
  options: {
    "event-name": { type: "string" },
    filter: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    batch: { type: "string" },
    ..._jsonOption,
    ..._profileOption,
  },
  async run(args) {
    const action = _required(args, 0, this.usage);
    if (action !== "create" && action !== "delete" && action !== "replay") {
      throw new CliError("usage", `unknown action "${action}"; usage: pd ${this.usage}`);
    }
    if (action === "replay") return _replay(_client(args), args, _flag(args, "json"));
    const usage = `subscriptions ${action} <emitter> <listener> [--event-name NAME]`;
    const client = _client(args);
    const emitter = await _emitter(client, _required(args, 1, usage));
    const listener = (await resolveWebhook(client, _required(args, 2, usage))).id;
    const eventName = _str(args, "event-name");
    const filter = _str(args, "filter");
    const body = {
      emitter_id: emitter,
      listener_id: listener,
      ...(eventName ? { event_name: eventName } : {}),
    };
    const json = _flag(args, "json");
    if (action === "create") {
      const sub = await client.request<{ id: string }>("POST", "/v1/subscriptions", {
        ...body,
        ...(filter ? { filter } : {}),
      });
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
