/**
 * `pd logs <id|name|p_id> [-f]`: a source's log lines, or what a workflow's steps logged in its
 * latest executions; `-f` follows them live.
 */
import { type ApiClient, listAll, resolveSource } from "../_api.js";
import { _flag, _int, _required } from "../_args.js";
import { _client, _jsonOption, _profileOption, defineCommand } from "../_command.js";
import { _printLog, _sseJson, _untilInterrupted, type LogJson } from "../_follow.js";
import { note, out, style } from "../_output.js";
import { _iso, _isWorkflowId, type ExecutionJson, resolveWorkflow } from "../_workflow-api.js";

/** Prints every log line of an execution's steps, prefixed with the execution and the step. */
function _printExecutionLogs(exe: ExecutionJson, json: boolean): void {
  for (const step of exe.steps) {
    for (const log of step.logs ?? []) {
      if (json) out(JSON.stringify({ execution_id: exe.id, step: step.name, ...log }));
      else
        out(
          `${style.dim(_iso(log.ts))} ${(log.level ?? "log").padEnd(5)} ${style.dim(`${exe.id} ${step.name}:`)} ${log.message ?? ""}`,
        );
    }
    if (step.error && !json)
      out(`${style.red("error")} ${style.dim(`${exe.id} ${step.name}:`)} ${step.error.message ?? ""}`);
  }
}

/** Whether an execution is over (its logs are complete). */
const finished = (exe: ExecutionJson) => !["queued", "running", "delayed", "suspended"].includes(exe.status);

/** A workflow's logs: the last `count` executions oldest first, then new ones as they finish. */
async function _workflowLogs(client: ApiClient, ref: string, count: number, json: boolean, follow: boolean) {
  const w = await resolveWorkflow(client, ref);
  const list = async () =>
    (await client.list<ExecutionJson>(`/v1/workflows/${w.id}/executions?limit=${count}`)).data;
  const shown = new Set<string>();
  const show = async (items: ExecutionJson[]) => {
    for (const item of [...items].reverse()) {
      if (shown.has(item.id) || !finished(item)) continue;
      shown.add(item.id);
      // The list may leave out step logs: read the execution itself.
      const exe = await client.request<ExecutionJson>("GET", `/v1/workflows/${w.id}/executions/${item.id}`);
      _printExecutionLogs(exe, json);
    }
  };
  await show(await list());
  if (!follow) return;
  if (!json) note(style.dim(`Following logs of ${w.name} (Ctrl-C to stop)...`, process.stderr));
  const controller = _untilInterrupted();
  while (!controller.signal.aborted) {
    await new Promise((r) => setTimeout(r, 1000));
    if (!controller.signal.aborted) await show(await list());
  }
}

export default defineCommand({
  name: "logs",
  summary:
    "Show a source's log lines (oldest first), or a workflow's (p_...) step logs of its latest runs; -f follows new lines until Ctrl-C.",
  examples: ["pd logs hello", "pd logs hello -f", "pd logs p_01h... -n 20   # a workflow: its latest runs"],
  usage: "logs <id|name|workflow p_id> [-n RUNS] [-f] [--json] [-p PROFILE]",
  options: {
    follow: { type: "boolean", short: "f" },
    limit: { type: "string", short: "n" },
    ..._jsonOption,
    ..._profileOption,
  },
  async run(args) {
    const ref = _required(args, 0, this.usage);
    const json = _flag(args, "json");
    const client = _client(args);
    if (_isWorkflowId(ref)) {
      await _workflowLogs(client, ref, _int(args, "limit", 10, 1, 100), json, _flag(args, "follow"));
      return;
    }
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
