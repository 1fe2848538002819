/**
 * `pd keys create|list|revoke`: API keys, with an operator key. A new key is printed once; lists
 * show each key's prefix, role, and when it was created, last used and revoked.
 */

import { listAll } from "../_api.js";
import { _flag, _required, _str } from "../_args.js";
import { _jsonOption, _profileOption, _runAction, type Action, defineCommand } from "../_command.js";
import { out, printJson, printTable, style } from "../_output.js";
import { _iso } from "./workspaces.js";

/** An API key as the API returns it (`key` only when it was just created). */
interface ApiKeyJson {
  id: string;
  workspace_id: string;
  name: string;
  prefix: string;
  role: "workspace" | "operator";
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  key?: string;
}

const ACTIONS: Record<string, Action> = {
  async create(client, args, json) {
    const workspace = _str(args, "workspace");
    const name = _str(args, "name");
    const made = await client.request<ApiKeyJson>("POST", "/v1/api_keys", {
      ...(workspace ? { workspace_id: workspace } : {}),
      ...(name ? { name } : {}),
      ...(_flag(args, "operator") ? { role: "operator" } : {}),
    });
    if (json) {
      printJson(made);
      return;
    }
    out(
      `${style.green("✔")} Created ${made.role} key ${made.name} (${made.id}) of workspace ${made.workspace_id}`,
    );
    out(`  ${style.yellow(made.key ?? "")}`);
    out("  shown once: keep it now (pd login --api-key <key>, or HOOKLINE_API_KEY)");
  },

  async list(client, args, json) {
    const workspace = _str(args, "workspace");
    const keys = await listAll<ApiKeyJson>(
      client,
      `/v1/api_keys${workspace ? `?workspace_id=${encodeURIComponent(workspace)}` : ""}`,
    );
    if (json) printJson(keys);
    else
      printTable(
        ["id", "name", "prefix", "role", "created", "last used", "revoked"],
        keys.map((k) => [
          k.id,
          k.name,
          `${k.prefix}…`,
          k.role,
          _iso(k.created_at),
          _iso(k.last_used_at),
          _iso(k.revoked_at),
        ]),
      );
  },

  async revoke(client, args, json) {
    const id = _required(args, 1, "keys revoke <id>");
    const key = await client.request<ApiKeyJson>("DELETE", `/v1/api_keys/${encodeURIComponent(id)}`);
    if (json) printJson(key);
    else out(`${style.green("✔")} Revoked key ${key.name} (${key.id}, ${key.prefix}…): refused from now on`);
  },
};

export default defineCommand({
  name: "keys",
  summary: "Create, list and revoke API keys of any workspace; needs an operator key.",
  examples: [
    "pd keys create --workspace ws_2k9... --name ci     # printed once",
    "pd keys list --workspace ws_2k9...",
    "pd keys create --name backup-operator --operator   # another operator key",
    "pd keys revoke key_7fq...",
  ],
  usage: [
    "keys create [--workspace WS_ID] [--name NAME] [--operator]",
    "keys list [--workspace WS_ID]",
    "keys revoke <id>   (the workspace defaults to the key's own; every action takes --json and -p PROFILE)",
  ].join("\n   or: pd "),
  options: {
    workspace: { type: "string" },
    name: { type: "string" },
    operator: { type: "boolean" },
    ..._jsonOption,
    ..._profileOption,
  },
  run: (args) => _runAction("keys", ACTIONS, args),
});
