/**
 * `pd workflows create|update|list|get|run|replay|executions|logs|activate|deactivate|delete`:
 * workflows from a file kept in git (YAML or JSON, docs/workflows.md), running and replaying them
 * and reading their runs.
 */
import type { ApiClient } from "../_api.js";
import { listAll } from "../_api.js";
import { _flag, _int, _required, _str, type ParsedArgs } from "../_args.js";
import { _jsonOption, _profileOption, _runAction, type Action, defineCommand } from "../_command.js";
import { CliError, out, printJson, printTable, style } from "../_output.js";
import { _event } from "../_run-event.js";
import {
  _iso,
  _printExecution,
  type ExecutionJson,
  resolveWorkflow,
  type WorkflowJson,
} from "../_workflow-api.js";
import { loadWorkflowFile } from "../_workflow-file.js";

const trigger = (w: WorkflowJson): string => {
  const t = w.trigger;
  if (t.type === "http") return t.endpoint_url ? `http ${t.endpoint_url}` : "http";
  if (t.type === "timer")
    return t.cron ? `cron ${t.cron}${t.timezone ? ` ${t.timezone}` : ""}` : `every ${t.intervalSeconds}s`;
  if (t.type === "source") return `source ${t.source_id}${t.event_name ? ` [${t.event_name}]` : ""}`;
  return t.type;
};

/** Prints a saved workflow after create or update. */
function _saved(verb: string, w: WorkflowJson, json: boolean): void {
  if (json) {
    printJson(w);
    return;
  }
  out(`${style.green("✔")} ${verb} workflow ${style.bold(w.name)} (${w.id}), ${w.steps.length} steps`);
  out(`  trigger: ${trigger(w)}${w.active ? "" : " [inactive]"}`);
  out(`  run it: pd workflows run ${w.id} --event '{"hello":"world"}'`);
}

/** The execution named by `exe_id`, or the newest one. */
async function _execution(
  client: ApiClient,
  w: WorkflowJson,
  exe: string | undefined,
): Promise<ExecutionJson> {
  if (exe)
    return client.request<ExecutionJson>(
      "GET",
      `/v1/workflows/${w.id}/executions/${encodeURIComponent(exe)}`,
    );
  const [newest] = (await client.list<ExecutionJson>(`/v1/workflows/${w.id}/executions?limit=1`)).data;
  if (!newest) throw new CliError("not_found", `${w.name} (${w.id}) has not run yet`);
  return client.request<ExecutionJson>("GET", `/v1/workflows/${w.id}/executions/${newest.id}`);
}

/** `activate`/`deactivate`: PUT with the new state. */
const setActive =
  (active: boolean): Action =>
  async (client, args, json) => {
    const w = await resolveWorkflow(
      client,
      _required(args, 1, `workflows ${active ? "activate" : "deactivate"} <id|name>`),
    );
    const updated = await client.request<WorkflowJson>("PUT", `/v1/workflows/${w.id}`, { active });
    if (json) printJson(updated);
    else
      out(`${style.green("✔")} ${updated.name} (${updated.id}) is ${updated.active ? "active" : "inactive"}`);
  };

/** The execution once it ended (a replay is queued, run by the server, read back until it ends). */
async function _finished(client: ApiClient, workflowId: string, exe: ExecutionJson): Promise<ExecutionJson> {
  const path = `/v1/workflows/${workflowId}/executions/${exe.id}`;
  let current = exe;
  for (let wait = 25; current.status === "queued" || current.status === "running"; ) {
    await new Promise((r) => setTimeout(r, wait));
    wait = Math.min(wait * 2, 500);
    current = await client.request<ExecutionJson>("GET", path);
  }
  return current;
}

/** A failed run exits 1 with the failing step's error; an exit is a success. */
function _failIfFailed(exe: ExecutionJson): void {
  if (exe.status !== "failed") return;
  const step = exe.steps.find((s) => s.status === "failed");
  const error = step?.error ?? exe.error;
  throw new CliError(
    "run_failed",
    `${step ? `step ${step.name}: ` : ""}${error?.name ?? "Error"}: ${error?.message ?? "the run failed"}`,
  );
}

const ACTIONS: Record<string, Action> = {
  async create(client, args, json) {
    const body = await loadWorkflowFile(_required(args, 1, "workflows create <file>"));
    if (_flag(args, "inactive")) body.active = false;
    _saved("Created", await client.request<WorkflowJson>("POST", "/v1/workflows", body), json);
  },

  async update(client, args, json) {
    const usage = "workflows update <id|name> <file>";
    const w = await resolveWorkflow(client, _required(args, 1, usage));
    const body = await loadWorkflowFile(_required(args, 2, usage));
    _saved("Updated", await client.request<WorkflowJson>("PUT", `/v1/workflows/${w.id}`, body), json);
  },

  async list(client, _args, json) {
    const items = await listAll<WorkflowJson>(client, "/v1/workflows");
    if (json) printJson(items);
    else
      printTable(
        ["id", "name", "active", "trigger", "steps"],
        items.map((w) => [w.id, w.name, w.active, trigger(w), w.steps.map((s) => s.name).join(",")]),
      );
  },

  async get(client, args, json) {
    const w = await resolveWorkflow(client, _required(args, 1, "workflows get <id|name>"));
    if (json) printJson(w);
    else {
      out(`${style.bold(w.name)} (${w.id})${w.active ? "" : " [inactive]"}`);
      out(`  trigger: ${trigger(w)}`);
      w.steps.forEach((s, i) => {
        out(
          `  ${i + 1}. ${s.name}${s.component_key ? ` (${s.component_key})` : s.component_id ? ` (${s.component_id})` : ""}`,
        );
      });
    }
  },

  async run(client, args, json) {
    const w = await resolveWorkflow(client, _required(args, 1, "workflows run <id|name> [--event JSON]"));
    const body = _event(_str(args, "event"), _str(args, "event-file"));
    const query = _flag(args, "async") ? "?async=true" : "";
    const exe = await client.request<ExecutionJson>("POST", `/v1/workflows/${w.id}/run${query}`, body);
    if (json) printJson(exe);
    else _printExecution(exe);
    _failIfFailed(exe);
  },

  async replay(client, args, json) {
    const usage = "workflows replay <id|name> <exe_id> [--from-step NAME] [--event JSON | --event-file FILE]";
    const w = await resolveWorkflow(client, _required(args, 1, usage));
    const exeId = _required(args, 2, usage);
    const body: Record<string, unknown> = _event(_str(args, "event"), _str(args, "event-file"));
    const fromStep = _str(args, "from-step");
    if (fromStep !== undefined) body.from_step = fromStep;
    let exe = await client.request<ExecutionJson>(
      "POST",
      `/v1/workflows/${w.id}/executions/${encodeURIComponent(exeId)}/replay`,
      body,
    );
    if (!_flag(args, "async")) exe = await _finished(client, w.id, exe);
    if (json) printJson(exe);
    else {
      out(`${style.dim(`replay of ${exeId}`)}`);
      _printExecution(exe);
    }
    _failIfFailed(exe);
  },

  async executions(client, args, json) {
    const w = await resolveWorkflow(client, _required(args, 1, "workflows executions <id|name> [-n 20]"));
    const limit = _int(args, "limit", 20, 1, 100);
    const page = await client.list<ExecutionJson>(`/v1/workflows/${w.id}/executions?limit=${limit}`);
    if (json) printJson(page.data);
    else
      printTable(
        ["id", "status", "started", "steps"],
        page.data.map((e) => [
          e.id,
          e.status,
          _iso(e.started_at_ms ?? e.started_at),
          e.steps.map((s) => `${s.name}:${s.status}`).join(" "),
        ]),
      );
  },

  async logs(client, args, json) {
    const w = await resolveWorkflow(client, _required(args, 1, "workflows logs <id|name> [exe_id]"));
    const exe = await _execution(client, w, args.positionals[2]);
    if (json) printJson(exe);
    else _printExecution(exe);
  },

  async delete(client, args, json) {
    const w = await resolveWorkflow(client, _required(args, 1, "workflows delete <id|name>"));
    await client.request("DELETE", `/v1/workflows/${w.id}`);
    if (json) printJson({ id: w.id, deleted: true });
    else out(`${style.green("✔")} Deleted workflow ${style.bold(w.name)} (${w.id})`);
  },

  activate: setActive(true),
  deactivate: setActive(false),
};

export default defineCommand({
  name: "workflows",
  summary:
    "Create or update a workflow from a YAML/JSON file, list and show workflows, run one with an event, read its executions and each step's logs, activate, deactivate or delete it.",
  examples: [
    "pd workflows create workflows/orders.yaml",
    'pd workflows run Orders --event \'{"body":{"order":"o-1"}}\'',
    "pd workflows logs Orders",
    "pd workflows replay Orders exe_01h... --from-step charge",
  ],
  usage: [
    "workflows create <file> [--inactive]",
    "workflows update <id|name> <file>",
    "workflows list",
    "workflows get <id|name>",
    "workflows run <id|name> [--event JSON | --event-file FILE] [--async]",
    "workflows replay <id|name> <exe_id> [--from-step NAME] [--event JSON | --event-file FILE] [--async]",
    "workflows executions <id|name> [-n 20]",
    "workflows logs <id|name> [exe_id]   (the steps of one execution, default the newest)",
    "workflows activate|deactivate|delete <id|name>   (every action takes --json and -p PROFILE)",
  ].join("\n   or: pd "),
  options: {
    event: { type: "string" },
    "event-file": { type: "string" },
    async: { type: "boolean" },
    "from-step": { type: "string" },
    inactive: { type: "boolean" },
    limit: { type: "string", short: "n" },
    ..._jsonOption,
    ..._profileOption,
  },
  run: (args: ParsedArgs) => _runAction("workflows", ACTIONS, args),
});
