/** The shape of a command and the shared helpers commands use. */
import { type ApiClient, createApiClient } from "./_api.js";
import { _flag, _parse, _required, _str, type OptionSpecs, type ParsedArgs } from "./_args.js";
import { resolveCredentials } from "./_config.js";
import { CliError, out } from "./_output.js";
import { _didYouMean } from "./_suggest.js";

/** One `pd` command. */
export interface Command {
  /** The word after `pd`. */
  name: string;
  /** One line for `pd --help`. */
  summary: string;
  /** The usage line (without `pd `). */
  usage: string;
  /** Command lines as a user types them, shown by `--help`. */
  examples: string[];
  /** Its options, as `parseArgs` takes them. */
  options: OptionSpecs;
  /** Runs it with parsed arguments. */
  run(args: ParsedArgs): Promise<void>;
}

/** Declares a command (identity, for types). */
export function defineCommand(command: Command): Command {
  return command;
}

/** The `-p/--profile` option every API command takes. @internal */
export const _profileOption: OptionSpecs = { profile: { type: "string", short: "p" } };

/** The `--json` option every listing takes. @internal */
export const _jsonOption: OptionSpecs = { json: { type: "boolean" } };

/** A client for the credentials in effect; a missing key is a clear `unauthorized` error. @internal */
export function _client(args: ParsedArgs): ApiClient {
  const creds = resolveCredentials(_str(args, "profile"));
  if (!creds.apiKey) {
    throw new CliError(
      "unauthorized",
      "no API key: run `pd login --api-key <key>`, set HOOKLINE_API_KEY, or start `pd serve` in this folder",
    );
  }
  return createApiClient(creds.baseUrl, creds.apiKey);
}

/** Runs a command from raw arguments, printing its help on `-h`. @internal */
export async function _runCommand(command: Command, argv: string[]): Promise<void> {
  const args = _parse(command.name, argv, command.options);
  if (args.values.help === true) {
    const examples = command.examples.map((line) => `  ${line}`).join("\n");
    out(`Usage: pd ${command.usage}\n\n${command.summary}\n\nExamples:\n${examples}`);
    return;
  }
  await command.run(args);
}

/** One action of a command with actions (`pd webhooks create`): the client, the arguments, `--json`. */
export type Action = (client: ApiClient, args: ParsedArgs, json: boolean) => Promise<void>;

/**
 * Runs the action named by the first positional of `args` (`pd <command> <action> ...`); an
 * unknown or missing one is a `usage` error listing them.
 * @internal
 */
export async function _runAction(
  command: string,
  actions: Record<string, Action>,
  args: ParsedArgs,
): Promise<void> {
  const name = _required(args, 0, `${command} ${Object.keys(actions).join("|")} ... (pd ${command} --help)`);
  const action = actions[name];
  if (!action) {
    throw new CliError(
      "usage",
      `unknown action "${name}"${_didYouMean(name, Object.keys(actions))}; use one of ${Object.keys(actions).join(", ")} (pd ${command} --help)`,
    );
  }
  await action(_client(args), args, _flag(args, "json"));
}
