/** Prop values from `--prop k=v` and `--props-file`. */
import { readFileSync } from "node:fs";
import { CliError } from "./_output.js";

/** A `--prop` value: JSON when it parses (`42`, `true`, `{"a":1}`), else the string itself. */
export function parsePropValue(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/**
 * Merges the props of a JSON file with `--prop k=v` pairs (pairs win). A pair without `=` or a
 * file that is not a JSON object is a `usage` error naming it (`--<flag>`, `--<flag>s-file`).
 */
export function collectProps(
  pairs: string[],
  file?: string,
  flag = "prop",
  fileFlag = `${flag}s-file`,
): Record<string, unknown> {
  const props: Record<string, unknown> = {};
  if (file) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      throw new CliError("usage", `--${fileFlag} ${file}: ${(error as Error).message}`);
    }
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new CliError("usage", `--${fileFlag} ${file}: expected a JSON object of values`);
    }
    Object.assign(props, parsed);
  }
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    if (eq <= 0) throw new CliError("usage", `--${flag} ${pair}: expected name=value`);
    props[pair.slice(0, eq)] = parsePropValue(pair.slice(eq + 1));
  }
  return props;
}
