/** The event of `pd run` and `pd workflows run`: `--event` (JSON), `--event-file`, or none. */
import { readFileSync } from "node:fs";
import { CliError } from "./_output.js";

/** The event to run with: `--event` (JSON), `--event-file`, or none. @internal */
export function _event(json: string | undefined, file: string | undefined): { event?: unknown } {
  if (json !== undefined && file !== undefined) {
    throw new CliError("usage", "--event and --event-file exclude each other");
  }
  if (json === undefined && file === undefined) return {};
  let text = json as string;
  if (file !== undefined) {
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new CliError("file_not_found", `cannot read ${file}: ${(error as NodeJS.ErrnoException).code}`);
    }
  }
  try {
    return { event: JSON.parse(text) };
  } catch (error) {
    throw new CliError("usage", `${file ?? "--event"}: not JSON (${(error as Error).message})`);
  }
}
