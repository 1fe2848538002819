/** `pd dev [--dc id] <file>`: deploy, watch the file, redeploy on save, stream logs and events. */
import { createHash } from "node:crypto";
import { watch } from "node:fs";
import { basename, dirname, extname, resolve } from "node:path";
import { resolveSource, type SourceJson } from "../_api.js";
import { _required, _str, _strs } from "../_args.js";
import { _client, _profileOption, defineCommand } from "../_command.js";
import {
  _loadEventPrinting,
  _printEvent,
  _printLog,
  _sseJson,
  _untilInterrupted,
  type EventJson,
  type LogJson,
} from "../_follow.js";
import { CliError, formatError, note, style } from "../_output.js";
import { collectProps } from "../_props.js";
import { _codeBody, _printSource } from "./deploy.js";

export default defineCommand({
  name: "dev",
  summary:
    "Deploy a component file, redeploy it on every save (same dc_ id), and stream its logs and events until Ctrl-C.",
  examples: [
    "pd dev hello.mjs                # redeploys on every save, streams logs and events",
    "pd dev hello.mjs --dc dc_01h... # keep redeploying a source deployed before",
  ],
  usage: "dev [--dc ID] <file> [--name NAME] [--prop key=value ...] [--props-file FILE] [-p PROFILE]",
  options: {
    dc: { type: "string" },
    name: { type: "string" },
    prop: { type: "string", multiple: true },
    "props-file": { type: "string" },
    ..._profileOption,
  },
  async run(args) {
    const file = _required(args, 0, this.usage);
    const client = _client(args);
    const props = collectProps(_strs(args, "prop"), _str(args, "props-file"));
    const name = _str(args, "name") ?? basename(file, extname(file));
    const hash = (text: string) => createHash("sha256").update(text).digest("hex");

    // The source to develop: --dc, else one with this name, else a new one.
    let existing: SourceJson | undefined;
    const dc = _str(args, "dc");
    if (dc) existing = await resolveSource(client, dc);
    else
      existing = await resolveSource(client, name).catch((error: unknown) => {
        if (error instanceof CliError && error.code === "not_found") return undefined;
        throw error;
      });

    const code = await _codeBody(file);
    let lastHash = hash(JSON.stringify(code));
    const body = { ...code, ...(Object.keys(props).length > 0 ? { configured_props: props } : {}) };
    const source = existing
      ? await client.request<SourceJson>("PUT", `/v1/sources/${existing.id}`, body)
      : await client.request<SourceJson>("POST", "/v1/sources", { ...body, name });
    await _printSource(source, existing ? "Updated" : "Deployed");
    note(style.dim(`Watching ${file} (Ctrl-C to stop)...`, process.stderr));

    const controller = _untilInterrupted();
    const { signal } = controller;

    // Redeploy on save: watch the folder (editors replace files), debounce, skip unchanged bundles.
    let timer: NodeJS.Timeout | undefined;
    let running = Promise.resolve();
    const redeploy = async () => {
      try {
        const next = await _codeBody(file, true);
        const nextHash = hash(JSON.stringify(next));
        if (nextHash === lastHash) return;
        lastHash = nextHash;
        note(style.dim(`${file} changed, redeploying...`, process.stderr));
        const updated = await client.request<SourceJson>("PUT", `/v1/sources/${source.id}`, next);
        await _printSource(updated, "Redeployed");
      } catch (error) {
        note(formatError(error));
      }
    };
    const watcher = watch(dirname(resolve(file)), (_event, changed) => {
      if (changed && !/\.(m|c)?[jt]sx?$/.test(String(changed))) return;
      clearTimeout(timer);
      timer = setTimeout(() => {
        running = running.then(redeploy);
      }, 150);
    });
    signal.addEventListener("abort", () => {
      watcher.close();
      clearTimeout(timer);
    });

    await _loadEventPrinting();
    // Say so once both streams are connected: from then on nothing is missed.
    let open = 0;
    const onOpen = () => {
      if (++open === 2) note(style.dim(`Streaming logs and events of ${source.name}...`, process.stderr));
    };
    const logs = client.stream(
      `/v1/sources/${source.id}/logs/sse`,
      (message) => {
        const log = message.event === "log" ? _sseJson<LogJson>(message) : undefined;
        if (log) _printLog(log, false, style.dim("[log] "));
      },
      signal,
      onOpen,
    );
    const events = client.stream(
      `/v1/sources/${source.id}/sse`,
      (message) => {
        const event = message.event === "emit" ? _sseJson<EventJson>(message) : undefined;
        if (event) _printEvent(event, false, style.dim("[event] "));
      },
      signal,
      onOpen,
    );
    try {
      await Promise.all([logs, events]);
    } finally {
      controller.abort();
      await running;
    }
    note(`Stopped. ${source.name} (${source.id}) stays deployed; remove it with: pd delete ${source.id}`);
  },
});
