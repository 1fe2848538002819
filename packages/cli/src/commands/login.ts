/** `pd login`: save an API key and base URL as a profile. */
import { createApiClient } from "../_api.js";
import { _str } from "../_args.js";
import { defineCommand } from "../_command.js";
import { _local, DEFAULT_BASE_URL, readConfig, URL_FILE, writeConfig } from "../_config.js";
import { CliError, note, out, style } from "../_output.js";

export default defineCommand({
  name: "login",
  summary: "Save an API key and server URL as a profile (checked against the server when it is up).",
  examples: [
    "pd login                                   # the key and URL of a pd serve in this folder",
    "pd login --api-key hl_... --base-url https://hooks.example.com -p prod",
  ],
  usage: "login [--api-key KEY] [--base-url URL] [-p PROFILE]",
  options: {
    "api-key": { type: "string" },
    "base-url": { type: "string" },
    profile: { type: "string", short: "p" },
  },
  async run(args) {
    const config = readConfig();
    const name = _str(args, "profile") ?? config.defaultProfile ?? "default";
    const previous = config.profiles[name] ?? {};
    const apiKey =
      _str(args, "api-key") ?? process.env.HOOKLINE_API_KEY ?? _local("api-key")?.value ?? previous.apiKey;
    if (!apiKey) {
      throw new CliError("usage", "no API key: pass --api-key (`pd serve` prints one on its first start)");
    }
    const baseUrl = (
      _str(args, "base-url") ??
      process.env.HOOKLINE_BASE_URL ??
      previous.baseUrl ??
      _local(URL_FILE)?.value ??
      DEFAULT_BASE_URL
    ).replace(/\/+$/, "");
    try {
      await createApiClient(baseUrl, apiKey).list("/v1/sources?limit=1");
    } catch (error) {
      if (error instanceof CliError && error.code === "server_unreachable") {
        note(style.yellow(`warning: ${error.message}`, process.stderr));
      } else {
        throw error;
      }
    }
    config.profiles[name] = { apiKey, baseUrl };
    config.defaultProfile ??= name;
    const path = writeConfig(config);
    out(`Logged in to ${baseUrl} as profile "${name}" (saved in ${path})`);
  },
});
