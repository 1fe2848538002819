/**
 * `pd accounts create|connect|list|update|delete`: connected accounts, whose credentials become an
 * app prop's `$auth`. On a terminal, `create` asks for the credential fields (hidden); `connect`
 * prints the OAuth sign-in URL and waits for the account.
 */
import { type ApiClient, listAll } from "../_api.js";
import { _flag, _required, _str, _strs } from "../_args.js";
import { bundleComponent } from "../_bundle.js";
import { _jsonOption, _profileOption, _runAction, type Action, defineCommand } from "../_command.js";
import { CliError, note, out, printJson, printTable, style } from "../_output.js";
import { _createPrompter, _isInteractive } from "../_prompt.js";
import { collectProps } from "../_props.js";

/** An account as the API returns it (never its credentials). */
interface AccountJson {
  id: string;
  app: string;
  name: string;
  oauth?: boolean;
  status?: string;
  external_user_id?: string | null;
  created_at: number;
}

/** How long `connect` waits between looks at the flow, ms (tests shorten it). */
const POLL_MS = Number(process.env.HOOKLINE_CONNECT_POLL_MS ?? 1000);

/**
 * The `$auth` fields a component file and the files it imports read (`this.$auth.api_key`,
 * `$auth["token"]`), in order of appearance: the fields its app's account needs.
 * @internal
 */
export async function _authFields(file: string): Promise<string[]> {
  const { code } = await bundleComponent(file);
  const fields = new Set<string>();
  for (const match of code.matchAll(/\$auth\s*(?:\.\s*([A-Za-z_$][\w$]*)|\[\s*["'`]([^"'`]+)["'`]\s*\])/g)) {
    fields.add((match[1] ?? match[2]) as string);
  }
  return [...fields];
}

/** Asks for each field's value (hidden); without known fields, for names and values until an empty name. @internal */
async function _askCredentials(
  fields: string[],
  given: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const values = { ...given };
  const prompter = _createPrompter();
  try {
    for (const field of fields) {
      if (values[field] === undefined)
        values[field] = await prompter.ask(`${style.bold(field, process.stderr)}: `, { hidden: true });
    }
    if (fields.length === 0) {
      note(style.dim("Enter the app's credential fields ($auth), an empty name to finish:", process.stderr));
      for (;;) {
        const name = (await prompter.ask("Field name: ")).trim();
        if (name === "") break;
        values[name] = await prompter.ask(`${style.bold(name, process.stderr)}: `, { hidden: true });
      }
    }
  } finally {
    prompter.close();
  }
  return values;
}

/** An account by id (`apn_...`) or exact name. @internal */
async function _resolveAccount(client: ApiClient, ref: string): Promise<AccountJson> {
  if (/^apn_/.test(ref)) return client.request<AccountJson>("GET", `/v1/accounts/${encodeURIComponent(ref)}`);
  const named = (await listAll<AccountJson>(client, "/v1/accounts")).filter((a) => a.name === ref);
  if (named.length === 1) return named[0] as AccountJson;
  if (named.length > 1) {
    throw new CliError(
      "ambiguous_name",
      `${named.length} accounts are named "${ref}": ${named.map((a) => a.id).join(", ")}; name one by its id`,
    );
  }
  throw new CliError("not_found", `No account ${ref} in this workspace`);
}

const ACTIONS: Record<string, Action> = {
  async create(client, args, json) {
    const app = _required(args, 1, "accounts create <app> [--name NAME] [--auth field=value ...]");
    let auth = collectProps(_strs(args, "auth"), _str(args, "auth-file"), "auth", "auth-file");
    const from = _str(args, "from");
    const fields = from ? await _authFields(from) : [];
    const missing = fields.filter((f) => auth[f] === undefined);
    const ask = _isInteractive() && !_flag(args, "no-input");
    if (ask && (missing.length > 0 || Object.keys(auth).length === 0))
      auth = await _askCredentials(missing, auth);
    else if (missing.length > 0) {
      throw new CliError(
        "usage",
        `${from} reads $auth.${missing.join(", $auth.")}: give ${missing.map((f) => `--auth ${f}=...`).join(" ")}`,
      );
    }
    if (Object.keys(auth).length === 0) {
      throw new CliError(
        "usage",
        "no credentials: give --auth field=value (or --auth-file FILE); on a terminal they are asked for",
      );
    }
    const name = _str(args, "name");
    const account = await client.request<AccountJson>("POST", "/v1/accounts", {
      app,
      ...(name ? { name } : {}),
      auth,
    });
    if (json) {
      printJson(account);
      return;
    }
    out(`${style.green("✔")} Connected ${app} account ${style.bold(account.name)} (${account.id})`);
    out(`  use it: --prop <app prop>='{"authProvisionId":"${account.id}"}'`);
  },

  async connect(client, args, json) {
    const app = _required(
      args,
      1,
      "accounts connect <app> [--name NAME] [--account ID] [--external-user-id ID]",
    );
    const name = _str(args, "name");
    const account = _str(args, "account");
    const endUser = _str(args, "external-user-id");
    const started = await client.request<{ authorize_url: string; state: string; expires_at: number }>(
      "POST",
      "/v1/accounts/connect",
      {
        app,
        ...(name ? { name } : {}),
        ...(account ? { account_id: (await _resolveAccount(client, account)).id } : {}),
        ...(endUser ? { external_user_id: endUser } : {}),
      },
    );
    note(`Open this URL in a browser and sign in to connect a ${app} account:`);
    // The URL alone on stdout (a script can pick it up), the rest on stderr; with --json, stdout is
    // the JSON alone.
    if (json) note(started.authorize_url);
    else process.stdout.write(`${started.authorize_url}\n`);
    if (_flag(args, "no-wait")) {
      if (json) printJson(started);
      return;
    }
    note(style.dim("Waiting for the sign-in (the link works for 10 minutes)…", process.stderr));
    for (;;) {
      const status = await client.request<{
        status: "pending" | "connected" | "failed";
        account: AccountJson | null;
        error: { code: string; message: string } | null;
      }>("GET", `/v1/accounts/connect/${encodeURIComponent(started.state)}`);
      if (status.status === "failed") {
        throw new CliError(
          status.error?.code ?? "connect_failed",
          status.error?.message ?? "Connecting failed",
        );
      }
      if (status.status === "connected" && status.account) {
        if (json) printJson(status.account);
        else {
          out(
            `${style.green("✔")} Connected ${app} account ${style.bold(status.account.name)} (${status.account.id})`,
          );
          out(`  use it: --prop <app prop>='{"authProvisionId":"${status.account.id}"}'`);
        }
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  },

  async update(client, args, json) {
    const ref = _required(args, 1, "accounts update <id|name> [--name NAME] [--auth field=value ...]");
    const account = await _resolveAccount(client, ref);
    const auth = collectProps(_strs(args, "auth"), _str(args, "auth-file"), "auth", "auth-file");
    const name = _str(args, "name");
    if (!name && Object.keys(auth).length === 0) {
      throw new CliError(
        "usage",
        "nothing to change: give --name NAME or --auth field=value (field=null removes it)",
      );
    }
    const updated = await client.request<AccountJson>("PATCH", `/v1/accounts/${account.id}`, {
      ...(name ? { name } : {}),
      ...(Object.keys(auth).length > 0 ? { auth } : {}),
    });
    if (json) printJson(updated);
    else
      out(`${style.green("✔")} Updated ${updated.app} account ${style.bold(updated.name)} (${updated.id})`);
  },

  async list(client, args, json) {
    const app = _str(args, "app");
    const accounts = await listAll<AccountJson>(
      client,
      `/v1/accounts${app ? `?app=${encodeURIComponent(app)}` : ""}`,
    );
    if (json) printJson(accounts);
    else
      printTable(
        ["id", "app", "name", "status", "end user", "created"],
        accounts.map((a) => [
          a.id,
          a.app,
          a.name,
          a.status ?? "active",
          a.external_user_id ?? "",
          new Date(a.created_at * 1000).toISOString(),
        ]),
      );
  },

  async delete(client, args, json) {
    const account = await _resolveAccount(client, _required(args, 1, "accounts delete <id|name>"));
    const result = await client.request("DELETE", `/v1/accounts/${account.id}`);
    if (json) printJson({ id: account.id, ...(result as object) });
    else out(`${style.green("✔")} Deleted ${account.app} account ${account.name} (${account.id})`);
  },
};

export default defineCommand({
  name: "accounts",
  summary:
    "Connect an app account (keys become the app prop's $auth, asked for on a terminal; or sign in through OAuth), list, update or delete accounts.",
  usage: [
    "accounts create <app> [--name NAME] [--auth field=value ...] [--auth-file FILE] [--from COMPONENT_FILE] [--no-input]",
    "accounts connect <app> [--name NAME] [--account ID|NAME] [--external-user-id ID] [--no-wait]",
    "accounts update <id|name> [--name NAME] [--auth field=value ...]",
    "accounts list [--app APP]",
    "accounts delete <id|name>   (every action takes --json and -p PROFILE)",
  ].join("\n   or: pd "),
  options: {
    name: { type: "string" },
    auth: { type: "string", multiple: true },
    "auth-file": { type: "string" },
    from: { type: "string" },
    app: { type: "string" },
    account: { type: "string" },
    "external-user-id": { type: "string" },
    "no-input": { type: "boolean" },
    "no-wait": { type: "boolean" },
    ..._jsonOption,
    ..._profileOption,
  },
  run: (args) => _runAction("accounts", ACTIONS, args),
});
