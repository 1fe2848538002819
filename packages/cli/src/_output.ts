/** Terminal output: errors with a stable code, colour only on a TTY, tables and JSON. */

/** An error the CLI reports as `<code>: <message>` on stderr, exiting with code 1. */
export class CliError extends Error {
  readonly code: string;
  readonly details: unknown;
  constructor(code: string, message: string, details?: unknown) {
    super(message);
    this.name = "CliError";
    this.code = code;
    this.details = details;
  }
}

/** Whether to colour a stream: a TTY, and neither `NO_COLOR` nor `TERM=dumb`. @internal */
export function _useColor(stream: NodeJS.WriteStream): boolean {
  return Boolean(stream.isTTY) && !process.env.NO_COLOR && process.env.TERM !== "dumb";
}

const wrap =
  (open: number, close: number) =>
  (text: string, stream: NodeJS.WriteStream = process.stdout) =>
    _useColor(stream) ? `\u001b[${open}m${text}\u001b[${close}m` : text;

/** ANSI styles applied only when the stream is a TTY. */
export const style = {
  bold: wrap(1, 22),
  dim: wrap(2, 22),
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  cyan: wrap(36, 39),
};

/** Writes a line to stdout. */
export function out(line = ""): void {
  process.stdout.write(`${line}\n`);
}

/** Writes a line to stderr (progress and notes, so stdout stays parseable). */
export function note(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** A warning the API sends beside `data` (the same shape for components and webhooks). */
export interface ApiWarning {
  code?: string;
  path?: string;
  message?: string;
}

/** Prints each warning in yellow on stderr: `⚠ warning <path>: <message> (<code>)`. */
export function printWarnings(warnings: readonly ApiWarning[]): void {
  for (const w of warnings) {
    const where = w.path ? `${w.path}: ` : "";
    note(style.yellow(`⚠ warning ${where}${w.message ?? ""} (${w.code ?? "warning"})`, process.stderr));
  }
}

/** Prints a value as indented JSON on stdout. */
export function printJson(value: unknown): void {
  out(JSON.stringify(value, null, 2));
}

/** Prints rows as an aligned table with a header; an empty list prints `(none)`. */
export function printTable(
  columns: string[],
  rows: Array<Array<string | number | boolean | null | undefined>>,
): void {
  if (rows.length === 0) {
    out(style.dim("(none)"));
    return;
  }
  const cells = rows.map((row) =>
    row.map((cell) => (cell === null || cell === undefined ? "-" : String(cell))),
  );
  const widths = columns.map((col, i) => Math.max(col.length, ...cells.map((row) => row[i]?.length ?? 0)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  out(style.bold(line(columns.map((c) => c.toUpperCase()))));
  for (const row of cells) out(line(row));
}

/** Formats an error for stderr: `<code>: <message>`, plus problem paths when the API gave them. */
export function formatError(error: unknown): string {
  if (error instanceof CliError) {
    const lines = [`${style.red(error.code, process.stderr)}: ${error.message}`];
    const problems = (
      error.details as { problems?: Array<{ path?: string; message?: string; code?: string }> }
    )?.problems;
    if (Array.isArray(problems)) {
      for (const p of problems) lines.push(`  - ${p.path ? `${p.path}: ` : ""}${p.message ?? p.code ?? ""}`);
    }
    return lines.join("\n");
  }
  if (error instanceof Error) return `${style.red("error", process.stderr)}: ${error.message}`;
  return `${style.red("error", process.stderr)}: ${String(error)}`;
}
