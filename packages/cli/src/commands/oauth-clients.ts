/**
 * `pd oauth-clients set|list|get|delete|providers`: the workspace's OAuth clients (your OAuth apps
 * at providers), with which users connect accounts by signing in (`pd accounts connect <app>`). For
 * an app of the built-in catalogue a client id and secret suffice; the secret is asked for (hidden)
 * on a terminal when not given.
 */
import { _flag, _required, _str, _strs } from "../_args.js";
import { _jsonOption, _profileOption, _runAction, type Action, defineCommand } from "../_command.js";
import { CliError, note, out, printJson, printTable, style } from "../_output.js";
import { _createPrompter, _isInteractive } from "../_prompt.js";

/** An OAuth client as the API returns it (never its secret). */
interface ClientJson {
  app: string;
  name: string;
  client_id: string;
  has_client_secret: boolean;
  redirect_uri: string;
  scopes: string[];
  authorize_url: string;
  token_url: string;
  token_auth: string;
  docs_url: string | null;
}

const ACTIONS: Record<string, Action> = {
  async set(client, args, json) {
    const app = _required(args, 1, "oauth-clients set <app> --client-id ID [--client-secret SECRET] ...");
    const clientId = _str(args, "client-id");
    if (!clientId) throw new CliError("usage", "give --client-id: the OAuth app's client id");
    let secret = _str(args, "client-secret");
    if (
      secret === undefined &&
      _isInteractive() &&
      !_flag(args, "no-input") &&
      _str(args, "token-auth") !== "none"
    ) {
      const prompter = _createPrompter();
      try {
        secret =
          (await prompter.ask(
            `${style.bold("Client secret", process.stderr)} (empty: keep the stored one): `,
            { hidden: true },
          )) || undefined;
      } finally {
        prompter.close();
      }
    }
    const body: Record<string, unknown> = { client_id: clientId };
    if (secret) body.client_secret = secret;
    const scopes = _strs(args, "scope");
    if (scopes.length > 0) body.scopes = scopes;
    for (const [flag, field] of [
      ["authorize-url", "authorize_url"],
      ["token-url", "token_url"],
      ["token-auth", "token_auth"],
      ["provider", "provider"],
      ["issuer", "issuer"],
    ] as const) {
      const value = _str(args, flag);
      if (value !== undefined) body[field] = value;
    }
    if (_flag(args, "no-pkce")) body.pkce = false;
    const saved = await client.request<ClientJson>(
      "PUT",
      `/v1/oauth_clients/${encodeURIComponent(app)}`,
      body,
    );
    if (json) {
      printJson(saved);
      return;
    }
    out(
      `${style.green("✔")} OAuth client of ${style.bold(saved.app)} saved (${saved.name}, client id ${saved.client_id})`,
    );
    out(`  register this redirect URL with the provider: ${saved.redirect_uri}`);
    out(`  then connect accounts: pd accounts connect ${saved.app}`);
  },

  async list(client, _args, json) {
    const clients = await client.request<ClientJson[]>("GET", "/v1/oauth_clients");
    if (json) printJson(clients);
    else
      printTable(
        ["app", "name", "client id", "scopes", "redirect URL"],
        clients.map((c) => [c.app, c.name, c.client_id, c.scopes.join(" "), c.redirect_uri]),
      );
  },

  async get(client, args, json) {
    const app = _required(args, 1, "oauth-clients get <app>");
    const c = await client.request<ClientJson>("GET", `/v1/oauth_clients/${encodeURIComponent(app)}`);
    if (json) printJson(c);
    else {
      out(`${style.bold(c.app)} (${c.name})`);
      out(`  client id      ${c.client_id} (secret ${c.has_client_secret ? "stored" : "none"})`);
      out(`  authorize URL  ${c.authorize_url}`);
      out(`  token URL      ${c.token_url} (${c.token_auth})`);
      out(`  scopes         ${c.scopes.join(" ") || "(none)"}`);
      out(`  redirect URL   ${c.redirect_uri}`);
    }
  },

  async delete(client, args, json) {
    const app = _required(args, 1, "oauth-clients delete <app>");
    const result = await client.request("DELETE", `/v1/oauth_clients/${encodeURIComponent(app)}`);
    if (json) printJson({ app, ...(result as object) });
    else out(`${style.green("✔")} Deleted the OAuth client of ${app}`);
  },

  async providers(client, _args, json) {
    const providers = await client.request<(ClientJson & { app: string })[]>("GET", "/v1/oauth_providers");
    if (json) printJson(providers);
    else {
      printTable(
        ["app", "name", "register at"],
        providers.map((p) => [p.app, p.name, p.docs_url ?? ""]),
      );
      note(style.dim(`Redirect URL to register: ${providers[0]?.redirect_uri ?? ""}`, process.stderr));
    }
  },
};

export default defineCommand({
  name: "oauth-clients",
  summary:
    "Set up OAuth clients (your OAuth apps at providers) so that users connect accounts by signing in.",
  usage: [
    "oauth-clients set <app> --client-id ID [--client-secret SECRET] [--scope S ...] [--authorize-url URL --token-url URL] [--token-auth client_secret_basic|client_secret_post|none] [--provider CATALOGUE_APP] [--issuer URL] [--no-pkce]",
    "oauth-clients list",
    "oauth-clients get <app>",
    "oauth-clients delete <app>",
    "oauth-clients providers   (every action takes --json and -p PROFILE)",
  ].join("\n   or: pd "),
  options: {
    "client-id": { type: "string" },
    "client-secret": { type: "string" },
    scope: { type: "string", multiple: true },
    "authorize-url": { type: "string" },
    "token-url": { type: "string" },
    "token-auth": { type: "string" },
    provider: { type: "string" },
    issuer: { type: "string" },
    "no-pkce": { type: "boolean" },
    "no-input": { type: "boolean" },
    ..._jsonOption,
    ..._profileOption,
  },
  run: (args) => _runAction("oauth-clients", ACTIONS, args),
});
