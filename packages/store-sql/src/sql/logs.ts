/** Component logs in SQL. */
import type { LogLine, LogStore } from "@hookline/store";
import { clampLimit, encodeText, pageOf, parseSeqCursor } from "@hookline/store/adapter";
import type { SqlClient } from "../clients.js";
import { trimSql } from "./events.js";
import { cols, LOG, toLog } from "./rows.js";
import type { SqlContext } from "./sql-context.js";
import { chunkRows, placeholders } from "./statement-text.js";

const COLUMNS = 5;

/** The logs of a SQL store. */
export function sqlLogs(c: SqlContext): LogStore {
  return {
    async append(workspaceId, componentId, lines) {
      c.open();
      if (lines.length === 0) return [];
      const stored: LogLine[] = [];
      const size = chunkRows(COLUMNS);
      const insert = async (db: SqlClient): Promise<void> => {
        for (let start = 0; start < lines.length; start += size) {
          const chunk = lines.slice(start, start + size);
          const params = chunk.flatMap((line) => [
            workspaceId,
            componentId,
            line.level,
            line.message,
            line.ts,
          ]);
          let text = `INSERT INTO logs (workspace_id, component_id, level, message, ts)
             VALUES ${placeholders(chunk.length, COLUMNS)} RETURNING seq`;
          const notifier = c.notifier;
          if (notifier?.heard() && Buffer.byteLength(encodeText(workspaceId + componentId)) < 4_000) {
            // One statement: the lines and a notice of their seq range (sent on commit). The ids
            // travel encoded, as the parameters are; the notifier decodes them.
            const n = params.length;
            params.push(notifier.channel, notifier.origin, workspaceId, componentId);
            text = `WITH ins AS (${text}), note AS (
                SELECT pg_notify($${n + 1}, json_build_object('o', $${n + 2}::text, 't', 'l',
                  'w', $${n + 3}::text, 'c', $${n + 4}::text,
                  'r', json_build_array(json_build_array(min(seq), max(seq))))::text) AS sent
                FROM ins
              )
              SELECT seq, (SELECT count(*) FROM note) AS noted FROM ins`;
          }
          const rows = await c.run(text, params, undefined, db);
          // Sequence values are drawn in VALUES order.
          const seqs = rows.map((row) => Number(row.seq)).sort((a, b) => a - b);
          chunk.forEach((line, i) => {
            stored.push({
              seq: seqs[i] ?? 0,
              workspaceId,
              componentId,
              level: line.level,
              message: line.message,
              ts: line.ts,
            });
          });
        }
      };
      if (lines.length <= size) await insert(c.client);
      else await c.transaction(insert);
      return stored;
    },
    async list(workspaceId, componentId, options = {}) {
      const limit = clampLimit(options.limit, 100, 1000);
      const after = parseSeqCursor(options.after, "after");
      const params: unknown[] = [workspaceId, componentId];
      let where = "t.workspace_id = $1 AND t.component_id = $2";
      if (after !== undefined) {
        params.push(after);
        where += ` AND t.seq > $${params.length}`;
      }
      params.push(limit + 1);
      const rows = await c.run(
        `SELECT ${cols(LOG)} FROM logs t WHERE ${where} ORDER BY t.seq LIMIT $${params.length}`,
        params,
      );
      return pageOf(rows.map(toLog), limit, (row) => String(row.seq));
    },
    trim: (componentId, limits) => trimSql(c, "logs", "component_id", componentId, limits),
  };
}
