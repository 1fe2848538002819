/** Argument parsing over `node:util` parseArgs, reporting mistakes as `usage` errors. */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { CliError } from "./_output.js";

/** The option specs of one command, as `parseArgs` takes them. */
export type OptionSpecs = NonNullable<ParseArgsConfig["options"]>;

/** Parsed arguments: option values by name and the positionals. */
export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
}

/**
 * Parses `argv` against `options`, strictly: an unknown option or a missing value is a
 * `usage` error naming the command.
 * @internal
 */
export function _parse(command: string, argv: string[], options: OptionSpecs): ParsedArgs {
  try {
    const { values, positionals } = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
    return { values: values as ParsedArgs["values"], positionals };
  } catch (error) {
    throw new CliError("usage", `pd ${command}: ${(error as Error).message.split("\n")[0]}`);
  }
}

/** Reads a string option. @internal */
export function _str(args: ParsedArgs, name: string): string | undefined {
  const value = args.values[name];
  return typeof value === "string" ? value : undefined;
}

/** Reads a repeatable string option. @internal */
export function _strs(args: ParsedArgs, name: string): string[] {
  const value = args.values[name];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return typeof value === "string" ? [value] : [];
}

/** Reads a boolean flag. @internal */
export function _flag(args: ParsedArgs, name: string): boolean {
  return args.values[name] === true;
}

/** The positional at `index`, or a `usage` error showing `usage`. @internal */
export function _required(args: ParsedArgs, index: number, usage: string): string {
  const value = args.positionals[index];
  if (value === undefined || value === "")
    throw new CliError("usage", `missing argument; usage: pd ${usage}`);
  return value;
}

/** Parses an integer option within bounds, or a `usage` error. @internal */
export function _int(args: ParsedArgs, name: string, fallback: number, min: number, max: number): number {
  const raw = _str(args, name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new CliError("usage", `--${name} must be an integer from ${min} to ${max}`);
  }
  return n;
}
