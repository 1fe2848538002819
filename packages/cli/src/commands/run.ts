/** `pd run <id|name> [--event JSON | --event-file FILE]`: run a source now and show what it emitted. */
import { resolveSource } from "../_api.js";
import { _flag, _required, _str } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { _loadEventPrinting, _printEvent, type EventJson } from "../_follow.js";
import { CliError, out, printJson, style } from "../_output.js";
import { _event } from "../_run-event.js";

/** What `POST /v1/sources/{id}/run` answers. */
interface RunJson {
  emitted: EventJson[];
  error: { code?: string; name?: string; message?: string; stack?: string } | null;
  duration_ms: number;
}

/** The frames of a component's stack that point into its own files (not the sandbox's). @internal */
function _ownFrames(stack: string | undefined): string[] {
  return (stack ?? "")
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => /^at /.test(line) && !/\((hookline:|native\))/.test(line));
}

export default defineCommand({
  name: "run",
  summary:
    "Run a source now (a timer source gets a timer event, others --event or {}) and show what it emitted.",
  examples: [
    "pd run hello",
    "pd run hello --event '{\"n\": 1}'",
    "pd run hello --event-file event.json --json",
  ],
  usage: "run <id|name> [--event JSON | --event-file FILE] [--json] [-p PROFILE]",
  options: {
    event: { type: "string" },
    "event-file": { type: "string" },
    ..._jsonOption,
    ..._profileOption,
  },
  async run(args) {
    const ref = _required(args, 0, this.usage);
    const body = _event(_str(args, "event"), _str(args, "event-file"));
    const client = _client(args);
    const source = await resolveSource(client, ref);
    const result = await client.request<RunJson>("POST", `/v1/sources/${source.id}/run`, body);
    const json = _flag(args, "json");
    if (json) printJson(result);
    else {
      await _loadEventPrinting();
      for (const event of result.emitted) _printEvent(event, false);
      const count = result.emitted.length;
      out(
        style.dim(
          `Ran ${source.name_slug} in ${Math.round(result.duration_ms)} ms: ${count} event${count === 1 ? "" : "s"} emitted`,
        ),
      );
    }
    if (result.error) {
      const { name, message } = result.error;
      const frames = _ownFrames(result.error.stack).map((frame) => `\n  ${frame}`);
      throw new CliError("run_failed", `${name ?? "Error"}: ${message ?? ""}${frames.join("")}`);
    }
  },
});
