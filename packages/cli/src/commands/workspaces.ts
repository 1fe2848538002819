/**
 * `pd workspaces create|list|get|revoke`: the server's workspaces (tenants), with an operator key
 * (the one `pd serve` prints at its first start). A workspace key is refused
 * (`operator_key_required`).
 */

import { listAll } from "../_api.js";
import { _required } from "../_args.js";
import { _jsonOption, _profileOption, _runAction, type Action, defineCommand } from "../_command.js";
import { out, printJson, printTable, style } from "../_output.js";

/** A workspace as the API returns it. */
interface WorkspaceJson {
  id: string;
  name: string;
  created_at: number;
  revoked_at: number | null;
}

/** An epoch-seconds time as ISO text, or empty. @internal */
export const _iso = (seconds: number | null | undefined): string =>
  seconds === null || seconds === undefined ? "" : new Date(seconds * 1000).toISOString();

const ACTIONS: Record<string, Action> = {
  async create(client, args, json) {
    const name = _required(args, 1, "workspaces create <name>");
    const ws = await client.request<WorkspaceJson>("POST", "/v1/workspaces", { name });
    if (json) {
      printJson(ws);
      return;
    }
    out(`${style.green("✔")} Created workspace ${style.bold(ws.name)} (${ws.id})`);
    out(`  give it a key: pd keys create --workspace ${ws.id} --name <name>`);
  },

  async list(client, _args, json) {
    const all = await listAll<WorkspaceJson>(client, "/v1/workspaces");
    if (json) printJson(all);
    else
      printTable(
        ["id", "name", "created", "revoked"],
        all.map((w) => [w.id, w.name, _iso(w.created_at), _iso(w.revoked_at)]),
      );
  },

  async get(client, args, json) {
    const id = _required(args, 1, "workspaces get <id>");
    const ws = await client.request<WorkspaceJson>("GET", `/v1/workspaces/${encodeURIComponent(id)}`);
    if (json) printJson(ws);
    else
      out(
        `${style.bold(ws.name)} (${ws.id}) created ${_iso(ws.created_at)}${ws.revoked_at ? `, revoked ${_iso(ws.revoked_at)}` : ""}`,
      );
  },

  async revoke(client, args, json) {
    const id = _required(args, 1, "workspaces revoke <id>");
    const ws = await client.request<WorkspaceJson>("DELETE", `/v1/workspaces/${encodeURIComponent(id)}`);
    if (json) printJson(ws);
    else out(`${style.green("✔")} Revoked workspace ${ws.name} (${ws.id}): its keys are refused from now on`);
  },
};

export default defineCommand({
  name: "workspaces",
  summary: "Create, list and revoke workspaces (tenants); needs an operator key.",
  examples: [
    "pd workspaces create acme",
    "pd workspaces list",
    "pd workspaces revoke ws_2k9...      # its keys are refused at once, on every node",
  ],
  usage: [
    "workspaces create <name>",
    "workspaces list",
    "workspaces get <id>",
    "workspaces revoke <id>   (every action takes --json and -p PROFILE)",
  ].join("\n   or: pd "),
  options: { ..._jsonOption, ..._profileOption },
  run: (args) => _runAction("workspaces", ACTIONS, args),
});
