/** `pd logs <id|name> [-f]`: a source's log lines; `-f` follows them live. */
import { listAll, resolveSource } from "../_api.js";
import { _flag, _required } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { _printLog, _sseJson, _untilInterrupted, type LogJson } from "../_follow.js";
import { note, style } from "../_output.js";

export default defineCommand({
  name: "logs",
  summary: "Show a source's log lines (oldest first); -f follows new lines until Ctrl-C.",
  usage: "logs <id|name> [-f] [--json] [-p PROFILE]",
  options: { follow: { type: "boolean", short: "f" }, ..._jsonOption, ..._profileOption },
  async run(args) {
    const ref = _required(args, 0, this.usage);
    const json = _flag(args, "json");
    const client = _client(args);
    const source = await resolveSource(client, ref);
    const logs = await listAll<LogJson>(client, `/v1/sources/${source.id}/logs`);
    for (const log of logs) _printLog(log, json);
    if (!_flag(args, "follow")) return;
    const last = logs.at(-1)?.seq;
    const controller = _untilInterrupted();
    await client.stream(
      `/v1/sources/${source.id}/logs/sse${last !== undefined ? `?last_event_id=${last}` : ""}`,
      (message) => {
        const log = message.event === "log" ? _sseJson<LogJson>(message) : undefined;
        if (log) _printLog(log, json);
      },
      controller.signal,
      () => {
        if (!json) note(style.dim(`Following logs of ${source.name} (Ctrl-C to stop)...`, process.stderr));
      },
    );
  },
});
