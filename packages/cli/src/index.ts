/**
 * `@hookline/cli`: the `pd` command line. `pd serve` runs the whole service; the other commands
 * drive a server over its REST API.
 * @packageDocumentation
 */

import { _runCommand, type Command } from "./_command.js";
import { CliError, formatError, out } from "./_output.js";
import { _didYouMean } from "./_suggest.js";
import accounts from "./commands/accounts.js";
import deleteCommand from "./commands/delete.js";
import deploy from "./commands/deploy.js";
import dev from "./commands/dev.js";
import events from "./commands/events.js";
import init from "./commands/init.js";
import keys from "./commands/keys.js";
import list from "./commands/list.js";
import login from "./commands/login.js";
import logs from "./commands/logs.js";
import oauthClients from "./commands/oauth-clients.js";
import publish from "./commands/publish.js";
import registry from "./commands/registry.js";
import run from "./commands/run.js";
import serve from "./commands/serve.js";
import subscriptions from "./commands/subscriptions.js";
import update from "./commands/update.js";
import webhooks from "./commands/webhooks.js";
import workflows from "./commands/workflows.js";
import workspaces from "./commands/workspaces.js";

export {
  type ApiClient,
  createApiClient,
  listAll,
  resolveSource,
  resolveWebhook,
  type SourceJson,
  type WebhookJson,
} from "./_api.js";
export { bundleComponent } from "./_bundle.js";
export type { Command } from "./_command.js";
export { configPath, DEFAULT_BASE_URL, readConfig, resolveCredentials, writeConfig } from "./_config.js";
export { CliError } from "./_output.js";
export { collectProps, parsePropValue } from "./_props.js";
export {
  type ExecutionJson,
  resolveWorkflow,
  type StepJson,
  type StepLogJson,
  type WorkflowJson,
} from "./_workflow-api.js";
export { loadWorkflowFile, type WorkflowBody, type WorkflowStepBody } from "./_workflow-file.js";

/** Every command, by name. */
export const commands: Record<string, Command> = Object.fromEntries(
  [
    serve,
    login,
    list,
    deploy,
    dev,
    update,
    deleteCommand,
    run,
    publish,
    registry,
    logs,
    events,
    webhooks,
    subscriptions,
    workflows,
    accounts,
    oauthClients,
    workspaces,
    keys,
    init,
  ].map((c) => [c.name, c]),
);

/** The version printed by `pd --version`. */
export const VERSION = "0.1.0";

/** The top-level help. @internal */
function _help(): string {
  const width = Math.max(...Object.keys(commands).map((n) => n.length));
  const lines = Object.values(commands).map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    "Usage: pd <command> [options]",
    "",
    "Commands:",
    ...lines,
    "",
    "Run `pd <command> --help` for a command's options and examples. Credentials: `pd login`,",
    "HOOKLINE_API_KEY and HOOKLINE_BASE_URL, else those of a `pd serve` started in this folder",
    "(./.hookline), else http://127.0.0.1:4100.",
  ].join("\n");
}

/**
 * Runs `pd` with `argv` (without `node` and the script). Resolves with the exit code: 0, or 1
 * after printing `<code>: <message>` on stderr.
 * @example
 * ```ts
 * process.exitCode = await main(process.argv.slice(2));
 * ```
 */
export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "help" || name === "--help" || name === "-h") {
    out(_help());
    return 0;
  }
  if (name === "--version" || name === "-v") {
    out(VERSION);
    return 0;
  }
  const command = commands[name];
  try {
    if (!command) {
      const guess = _didYouMean(name, Object.keys(commands));
      throw new CliError("usage", `unknown command "${name}"${guess}; run \`pd --help\``);
    }
    await _runCommand(command, rest);
    return 0;
  } catch (error) {
    process.stderr.write(`${formatError(error)}\n`);
    if (process.env.HOOKLINE_DEBUG && error instanceof Error && !(error instanceof CliError)) {
      process.stderr.write(`${error.stack}\n`);
    }
    return 1;
  }
}
