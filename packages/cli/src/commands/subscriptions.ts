/**
 * `pd subscriptions create <emitter> <listener> [--event-name N] [--filter JSON] | delete <emitter>
 * <listener> | replay <sub_id> [--since T] [--until T] [--filter JSON] [--batch N] [--resume rpl_ID] |
 * replays <sub_id>`.
 */

import { type ApiClient, resolveSource, resolveWebhook } from "../_api.js";
import { _flag, _int, _required, _str, _time } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { CliError, note, out, printJson, style } from "../_output.js";
import { _didYouMean } from "../_suggest.js";

/** A replay job (`rpl_...`), as `POST /v1/subscriptions/{id}/replay` and its `continue` return it. */
interface ReplayJson {
  id: string;
  subscription_id: string;
  webhook_id: string;
  status: "running" | "done" | "failed";
  scanned: number;
  enqueued: number;
  cursor: string | null;
  error: string | null;
  batch?: { replayed: number; scanned: number };
}

/** One line of progress: the job, what it examined and sent so far. @internal */
function _progress(r: ReplayJson): string {
  return `  ${r.id} ${r.status}: scanned ${r.scanned}, replayed ${r.enqueued} so far${r.cursor ? ` (cursor ${r.cursor})` : ""}`;
}

/**
 * `pd subscriptions replay`: starts a replay (or resumes one with `--resume rpl_...`), then runs its
 * batches until it is done, with progress on stderr. @internal
 */
async function _replay(client: ApiClient, args: Parameters<typeof _str>[0], json: boolean): Promise<void> {
  const usage =
    "subscriptions replay <sub_id> [--since 24h] [--until TIME] [--filter JSON] [--batch N] [--resume rpl_ID]";
  const id = encodeURIComponent(_required(args, 1, usage));
  const sinceText = _str(args, "since");
  const untilText = _str(args, "until");
  const filter = _str(args, "filter");
  const resume = _str(args, "resume");
  const limit = _int(args, "batch", 1000, 1, 10_000);
  let job = resume
    ? await client.request<ReplayJson>(
        "POST",
        `/v1/subscriptions/${id}/replays/${encodeURIComponent(resume)}/continue`,
        { limit },
      )
    : await client.request<ReplayJson>("POST", `/v1/subscriptions/${id}/replay`, {
        ...(sinceText ? { since: Math.floor(_time("since", sinceText) / 1000) } : {}),
        ...(untilText ? { until: Math.floor(_time("until", untilText) / 1000) } : {}),
        ...(filter ? { filter } : {}),
        limit,
      });
  if (!json) note(_progress(job));
  while (job.status === "running") {
    job = await client.request<ReplayJson>(
      "POST",
      `/v1/subscriptions/${id}/replays/${encodeURIComponent(job.id)}/continue`,
      { limit },
    );
    if (!json) note(_progress(job));
  }
  const { batch: _batch, ...recorded } = job;
  if (json) printJson(recorded);
  else if (job.status === "failed") throw new CliError("failed", `Replay ${job.id} failed: ${job.error}`);
  else
    out(
      `${style.green("✔")} Replayed ${job.enqueued} ${job.enqueued === 1 ? "event" : "events"} to ${job.webhook_id} (${job.id}, ${job.scanned} examined)`,
    );
}

/** `pd subscriptions replays <sub_id>`: the subscription's replays and their progress. @internal */
async function _replays(client: ApiClient, args: Parameters<typeof _str>[0], json: boolean): Promise<void> {
  const id = encodeURIComponent(_required(args, 1, "subscriptions replays <sub_id>"));
  const list = await client.request<ReplayJson[]>("GET", `/v1/subscriptions/${id}/replays?limit=100`);
  if (json) printJson(list);
  else if (list.length === 0) out("No replays");
  else for (const r of list) out(_progress(r).trim() + (r.error ? ` — ${r.error}` : ""));
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
  examples: [
    "pd subscriptions create hello my-receiver",
    'pd subscriptions create hello my-receiver --filter \'{"event.total":{"$gte":100}}\'',
    "pd subscriptions delete hello my-receiver",
    "pd subscriptions replay sub_01h... --since 7d",
  ],
  usage:
    "subscriptions create <emitter> <listener> [--event-name NAME] [--filter JSON] | subscriptions delete <emitter> <listener> [--event-name NAME] | subscriptions replay <sub_id> [--since 24h] [--until TIME] [--filter JSON] [--batch N] [--resume rpl_ID] [--json] | subscriptions replays <sub_id> [--json]",
  options: {
    "event-name": { type: "string" },
    filter: { type: "string" },
    since: { type: "string" },
    until: { type: "string" },
    batch: { type: "string" },
    resume: { type: "string" },
    ..._jsonOption,
    ..._profileOption,
  },
  async run(args) {
    const action = _required(args, 0, this.usage);
    if (!["create", "delete", "replay", "replays"].includes(action)) {
      throw new CliError(
        "usage",
        `unknown action "${action}"${_didYouMean(action, ["create", "delete", "replay", "replays"])}; usage: pd ${this.usage}`,
      );
    }
    if (action === "replay") return _replay(_client(args), args, _flag(args, "json"));
    if (action === "replays") return _replays(_client(args), args, _flag(args, "json"));
    const usage = `subscriptions ${action} <emitter> <listener> [--event-name NAME]`;
    const client = _client(args);
    const emitter = await _emitter(client, _required(args, 1, usage));
    const listenerRef = _required(args, 2, usage);
    // A source listener (dc_...) is an apphook source; anything else names a webhook.
    const listener = /^dc_/.test(listenerRef) ? listenerRef : (await resolveWebhook(client, listenerRef)).id;
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
