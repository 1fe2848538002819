/** Helpers that write SQL text shared by the sub-stores: patches, placeholders, counts, cancels. */
import type { SqlRow } from "../clients.js";

/** The `UPDATE ... SET` list of a patch: `set(column, value)` appends a parameter to `params`. */
export function patcher(params: unknown[]) {
  const sets: string[] = [];
  return {
    sets,
    set(column: string, value: unknown, cast = ""): void {
      params.push(value);
      sets.push(`${column} = $${params.length}${cast}`);
    },
  };
}

/** Fails the open (pending, paused, in-flight) deliveries matching `where`, with `reason`. */
export const cancelDeliveriesSql = (reason: string, nowParam: string, where: string): string =>
  `UPDATE deliveries SET state = 'failed', last_error = '${reason}', lease_owner = NULL,
     lease_expires_at = NULL, updated_at = ${nowParam}
   WHERE state IN ('pending', 'paused', 'delivering') AND ${where}`;

/** Counts the rows a `WITH x AS (... RETURNING 1) SELECT count(*) AS n FROM x` statement reports. */
export const countOf = (rows: SqlRow[]): number => Number(rows[0]?.n ?? 0);

/** Positional placeholders `($1, $2, ...), (...)` for a multi-row insert, with optional casts. */
export function placeholders(rows: number, columns: number, casts: string[] = []): string {
  const groups: string[] = [];
  for (let r = 0; r < rows; r++) {
    const cells: string[] = [];
    for (let c = 0; c < columns; c++) cells.push(`$${r * columns + c + 1}${casts[c] ?? ""}`);
    groups.push(`(${cells.join(", ")})`);
  }
  return groups.join(", ");
}

/** Rows per multi-row INSERT, below Postgres's 65535 parameters. */
export const chunkRows = (columns: number): number => Math.max(1, Math.floor(60_000 / columns));
