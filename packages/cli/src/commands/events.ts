/** `pd events <id|name|p_id> [-n N] [-f]`: a source's or a workflow's latest events; `-f` follows new ones. */
import { resolveSource } from "../_api.js";
import { _flag, _int, _required } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { _loadEventPrinting, _printEvent, _sseJson, _untilInterrupted, type EventJson } from "../_follow.js";
import { note, out, printJson, style } from "../_output.js";
import { _isWorkflowId, resolveWorkflow } from "../_workflow-api.js";

export default defineCommand({
  name: "events",
  summary:
    "Show the latest events of a source or a workflow (p_...) (default 10, at most 100); -f follows new ones until Ctrl-C.",
  examples: [
    "pd events hello -n 5",
    "pd events hello -f             # follow new events until Ctrl-C",
    "pd events p_01h... --json",
  ],
  usage: "events <id|name|workflow p_id> [-n N] [-f] [--json] [-p PROFILE]",
  options: {
    limit: { type: "string", short: "n" },
    follow: { type: "boolean", short: "f" },
    ..._jsonOption,
    ..._profileOption,
  },
  async run(args) {
    const ref = _required(args, 0, this.usage);
    const limit = _int(args, "limit", 10, 1, 100);
    const json = _flag(args, "json");
    const follow = _flag(args, "follow");
    const client = _client(args);
    if (!json) await _loadEventPrinting();
    // A workflow (p_...) is an emitter too: its events are read the same way.
    const emitter = _isWorkflowId(ref)
      ? { base: "/v1/workflows", ...(await resolveWorkflow(client, ref)) }
      : { base: "/v1/sources", ...(await resolveSource(client, ref)) };
    const page = await client.list<EventJson>(
      `${emitter.base}/${emitter.id}/event_summaries?limit=${limit}&expand=event`,
    );
    const events = page.data;
    if (json && !follow) printJson(events);
    else {
      if (events.length === 0 && !json) out(style.dim("(no events yet)"));
      // Newest first from the API; shown oldest first so the latest is next to the prompt.
      for (const event of [...events].reverse()) _printEvent(event, json);
    }
    if (!follow) return;
    const seen = new Set(events.map((e) => e.id));
    const controller = _untilInterrupted();
    await client.stream(
      `${emitter.base}/${emitter.id}/sse`,
      (message) => {
        const event = message.event === "emit" ? _sseJson<EventJson>(message) : undefined;
        if (event && !seen.has(event.id)) _printEvent(event, json);
      },
      controller.signal,
      () => {
        if (!json) note(style.dim(`Following events of ${emitter.name} (Ctrl-C to stop)...`, process.stderr));
      },
    );
  },
});
