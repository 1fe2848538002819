/** Argument parsing over `node:util` parseArgs, reporting mistakes as `usage` errors. */
import { type ParseArgsConfig, parseArgs } from "node:util";
import { CliError } from "./_output.js";
import { _didYouMean } from "./_suggest.js";

/** The option specs of one command, as `parseArgs` takes them. */
export type OptionSpecs = NonNullable<ParseArgsConfig["options"]>;

/** Parsed arguments: option values by name and the positionals. */
export interface ParsedArgs {
  values: Record<string, string | boolean | string[] | boolean[] | undefined>;
  positionals: string[];
  /** How each option given was typed (`-n` or `--limit`), so messages name what the user wrote. */
  typed?: Record<string, string>;
}

/** An option as the user typed it (`-n`), else its long form. @internal */
export function _typed(args: ParsedArgs, name: string): string {
  return args.typed?.[name] ?? `--${name}`;
}

/**
 * Parses `argv` against `options`, strictly: an unknown option or a missing value is a
 * `usage` error naming the command.
 * @internal
 */
export function _parse(command: string, argv: string[], options: OptionSpecs): ParsedArgs {
  try {
    const { values, positionals, tokens } = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
    const typed: Record<string, string> = {};
    for (const token of tokens) if (token.kind === "option") typed[token.name] = token.rawName;
    return { values: values as ParsedArgs["values"], positionals, typed };
  } catch (error) {
    const message = (error as Error).message.split("\n")[0] ?? "";
    // An unknown option: the nearest of this command's (`--limt` → `--limit`).
    const unknown = /^Unknown option '(--?[^']+)'/.exec(message)?.[1];
    const names = [...Object.keys(options), "help"].map((n) => `--${n}`);
    if (unknown) {
      const guess = unknown.startsWith("--") ? _didYouMean(unknown, names) : "";
      throw new CliError("usage", `pd ${command}: unknown option ${unknown}${guess} (pd ${command} --help)`);
    }
    throw new CliError("usage", `pd ${command}: ${message}`);
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
    throw new CliError("usage", `${_typed(args, name)} must be an integer from ${min} to ${max}`);
  }
  return n;
}

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a duration: a number with a unit (`500ms`, `30s`, `5m`, `2h`, `7d`), or a plain number of
 * `plainUnit`s. Undefined when it is not one.
 * @internal
 */
export function _parseDuration(text: string, plainUnit: "ms" | "s" = "ms"): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (UNITS[match[2] ?? plainUnit] as number));
}

/**
 * A point in time: a duration ago (`24h`, `7d`), an ISO date, or epoch seconds; a `usage` error
 * naming `--name` otherwise. Returns epoch milliseconds.
 * @internal
 */
export function _time(name: string, text: string, now = Date.now()): number {
  if (/^\d{9,}$/.test(text)) return Number(text) * 1000;
  const ago = /[a-z]$/.test(text) ? _parseDuration(text) : undefined;
  if (ago !== undefined) return now - ago;
  const date = Date.parse(text);
  if (Number.isNaN(date)) {
    throw new CliError(
      "usage",
      `--${name} ${text}: give a time ago (30m, 24h, 7d), an ISO date (2026-01-31T12:00:00Z) or epoch seconds`,
    );
  }
  return date;
}
