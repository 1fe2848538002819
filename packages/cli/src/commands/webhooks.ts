/**
 * `pd webhooks create|update|delete|deliveries|retry|recover|test|secret|rotate`: webhooks, what was
 * delivered to them, sending again, a test event, and their signing secrets.
 */
import { resolveWebhook, type WebhookJson } from "../_api.js";
import { _flag, _int, _required, _str, _time } from "../_args.js";
import { _jsonOption, _profileOption, _runAction, type Action, defineCommand } from "../_command.js";
import { CliError, note, out, printJson, printTable, printWarnings, style } from "../_output.js";

/** A delivery as `GET /v1/webhooks/{id}/deliveries` returns it. */
export interface DeliveryJson {
  id: string;
  event_id: string;
  emitter_id: string;
  event_name: string;
  status: "pending" | "delivering" | "succeeded" | "failed";
  attempts: number;
  next_attempt_at: number | null;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  attempt_log: Array<{ at: number; status: number | null; duration_ms: number; error: string | null }>;
}

/** How to let deliveries through that the SSRF guard refused, and send them again. @internal */
function _ssrfAdvice(webhook: WebhookJson): string {
  return (
    `refused by the SSRF guard (ssrf_blocked): ${webhook.url} is a loopback or private address. Allow it ` +
    "(restart `pd serve` with --dev for loopback, --allow-private-urls, or --allow-url <host or CIDR>), " +
    `then send them again: pd webhooks recover ${webhook.name ?? webhook.id}`
  );
}

const iso = (seconds: number) => new Date(seconds * 1000).toISOString().replace(".000Z", "Z");

/** The subcommands, by name; each gets the client, the arguments and `--json`. @internal */
const ACTIONS: Record<string, Action> = {
  async create(client, args, json) {
    const url = _required(args, 1, "webhooks create <url> [--name NAME] [--description TEXT]");
    const name = _str(args, "name");
    const description = _str(args, "description");
    const { data: webhook, warnings } = await client.send<WebhookJson>("POST", "/v1/webhooks", {
      url,
      ...(name ? { name } : {}),
      ...(description ? { description } : {}),
    });
    printWarnings(warnings);
    if (json) printJson(warnings.length > 0 ? { ...webhook, warnings } : webhook);
    else {
      out(`${style.green("✔")} Created webhook ${style.bold(webhook.id)} → ${webhook.url}`);
      out(`  subscribe it: pd subscriptions create <source> ${webhook.name ?? webhook.id}`);
    }
  },

  async update(client, args, json) {
    const ref = _required(
      args,
      1,
      "webhooks update <id|name> [--url URL] [--name NAME] [--enable|--disable]",
    );
    if (_flag(args, "enable") && _flag(args, "disable")) {
      throw new CliError("usage", "--enable and --disable exclude each other");
    }
    const body: Record<string, unknown> = {};
    for (const field of ["url", "name", "description"]) {
      const value = _str(args, field);
      if (value !== undefined) body[field] = value;
    }
    if (_flag(args, "enable")) body.active = true;
    if (_flag(args, "disable")) body.active = false;
    if (Object.keys(body).length === 0) {
      throw new CliError(
        "usage",
        "nothing to update: give --url, --name, --description, --enable or --disable",
      );
    }
    const { id } = await resolveWebhook(client, ref);
    const { data: webhook, warnings } = await client.send<WebhookJson>("PATCH", `/v1/webhooks/${id}`, body);
    printWarnings(warnings);
    if (json) printJson(warnings.length > 0 ? { ...webhook, warnings } : webhook);
    else
      out(
        `${style.green("✔")} Updated webhook ${style.bold(webhook.id)} → ${webhook.url}${webhook.active ? "" : " [disabled]"}`,
      );
  },

  async delete(client, args, json) {
    const { id } = await resolveWebhook(client, _required(args, 1, "webhooks delete <id|name>"));
    const result = await client.request("DELETE", `/v1/webhooks/${encodeURIComponent(id)}`);
    if (json) printJson({ id, ...(result as object) });
    else out(`${style.green("✔")} Deleted webhook ${id}`);
  },

  async deliveries(client, args, json) {
    const webhook = await resolveWebhook(client, _required(args, 1, "webhooks deliveries <id|name>"));
    const status = _str(args, "status");
    const limit = _int(args, "limit", 20, 1, 100);
    const query = new URLSearchParams({ limit: String(limit), ...(status ? { status } : {}) });
    const page = await client.list<DeliveryJson>(`/v1/webhooks/${webhook.id}/deliveries?${query}`);
    if (json) {
      printJson(page.data);
      return;
    }
    if (!webhook.active) note(style.yellow(`warning: ${webhook.id} is disabled`, process.stderr));
    // Lazily: the client commands start without @hookline/core.
    const { DEFAULT_CHANNEL } = await import("@hookline/core");
    printTable(
      ["id", "status", "attempts", "last", "next", "created", "event", "from"],
      page.data.map((d) => [
        d.id,
        d.status,
        d.attempts,
        d.last_status ?? d.last_error,
        d.next_attempt_at === null ? null : iso(d.next_attempt_at),
        iso(d.created_at),
        `${d.event_id}${d.event_name === DEFAULT_CHANNEL ? "" : ` [${d.event_name}]`}`,
        d.emitter_id,
      ]),
    );
    const blocked = page.data.filter((d) => d.last_error === "ssrf_blocked").length;
    if (blocked > 0) {
      note(
        style.yellow(
          `${blocked} of these ${blocked === 1 ? "was" : "were"} ${_ssrfAdvice(webhook)}`,
          process.stderr,
        ),
      );
    }
  },

  async retry(client, args, json) {
    const usage = "webhooks retry <id|name> <delivery_id>";
    const { id } = await resolveWebhook(client, _required(args, 1, usage));
    const delivery = _required(args, 2, usage);
    const result = await client.request(
      "POST",
      `/v1/webhooks/${id}/deliveries/${encodeURIComponent(delivery)}/retry`,
    );
    if (json) printJson(result);
    else out(`${style.green("✔")} Sending ${delivery} again now`);
  },

  async recover(client, args, json) {
    const { id } = await resolveWebhook(
      client,
      _required(args, 1, "webhooks recover <id|name> [--since 24h]"),
    );
    const since = _time("since", _str(args, "since") ?? "24h");
    const untilText = _str(args, "until");
    const body = {
      since: Math.floor(since / 1000),
      ...(untilText ? { until: Math.floor(_time("until", untilText) / 1000) } : {}),
    };
    const { recovered } = await client.request<{ recovered: number }>(
      "POST",
      `/v1/webhooks/${id}/recover`,
      body,
    );
    if (json) printJson({ recovered });
    else {
      out(
        `${style.green("✔")} Sending ${recovered} failed ${recovered === 1 ? "delivery" : "deliveries"} again (failed since ${iso(body.since)})`,
      );
    }
  },

  async test(client, args, json) {
    const webhook = await resolveWebhook(client, _required(args, 1, "webhooks test <id|name>"));
    const result = await client.request<{
      ok: boolean;
      event_id: string;
      status: number | null;
      duration_ms: number;
      response: string | null;
      error: string | null;
    }>("POST", `/v1/webhooks/${webhook.id}/test`);
    if (json) printJson(result);
    const answer = result.status === null ? "no answer" : `answered ${result.status}`;
    if (result.ok) {
      if (!json)
        out(
          `${style.green("✔")} ${webhook.url} ${answer} in ${result.duration_ms} ms (test event ${result.event_id})`,
        );
      return;
    }
    const advice = result.error === "ssrf_blocked" ? `: ${_ssrfAdvice(webhook)}` : "";
    const excerpt = result.response ? `\n${result.response.slice(0, 500)}` : "";
    throw new CliError("test_failed", `${webhook.url} ${answer} (${result.error})${advice}${excerpt}`);
  },

  async secret(client, args, json) {
    const { id } = await resolveWebhook(client, _required(args, 1, "webhooks secret <id|name>"));
    const { secret } = await client.request<{ secret: string }>("GET", `/v1/webhooks/${id}/secret`);
    if (json) printJson({ id, secret });
    else out(secret);
  },

  async rotate(client, args, json) {
    const { id } = await resolveWebhook(client, _required(args, 1, "webhooks rotate <id|name>"));
    const { secret } = await client.request<{ secret: string }>("POST", `/v1/webhooks/${id}/secret/rotate`);
    if (json) printJson({ id, secret });
    else {
      out(secret);
      note(
        style.dim("The previous secret keeps verifying for 24 hours: update your receiver.", process.stderr),
      );
    }
  },
};

export default defineCommand({
  name: "webhooks",
  summary:
    "Create, update or delete a webhook; show its deliveries, send them again (retry, recover), send a test event, read or rotate its secret.",
  examples: [
    "pd webhooks create https://example.com/hooks --name my-receiver",
    "pd webhooks deliveries my-receiver --status failed",
    "pd webhooks test my-receiver",
    "pd webhooks recover my-receiver --since 7d",
    "pd webhooks secret my-receiver",
  ],
  usage: [
    "webhooks create <url> [--name NAME] [--description TEXT]",
    "webhooks update <id|name> [--url URL] [--name NAME] [--description TEXT] [--enable|--disable]",
    "webhooks delete <id|name>",
    "webhooks deliveries <id|name> [--status pending|delivering|succeeded|failed] [-n 20]",
    "webhooks retry <id|name> <delivery_id>",
    "webhooks recover <id|name> [--since 24h|ISO date|epoch s] [--until ...]",
    "webhooks test <id|name>   (sends a test event now and shows the answer)",
    "webhooks secret <id|name>",
    "webhooks rotate <id|name>   (every action takes --json and -p PROFILE)",
  ].join("\n   or: pd "),
  options: {
    name: { type: "string" },
    description: { type: "string" },
    url: { type: "string" },
    enable: { type: "boolean" },
    disable: { type: "boolean" },
    status: { type: "string" },
    limit: { type: "string", short: "n" },
    since: { type: "string" },
    until: { type: "string" },
    ..._jsonOption,
    ..._profileOption,
  },
  run: (args) => _runAction("webhooks", ACTIONS, args),
});
