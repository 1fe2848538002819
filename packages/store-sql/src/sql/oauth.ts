/** OAuth clients and auth tickets in SQL. */
import type { AuthTicket, AuthTicketStore, OAuthClientRecord, OAuthClientStore } from "@hookline/store";
import type { SqlRow } from "../clients.js";
import { fromJson, optStr, str } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

const CLIENT_COLS = "workspace_id, app, config, client_secret, created_at, updated_at";
const TICKET_COLS = "kind, key, workspace_id, data, expires_at, created_at";

function toClient(row: SqlRow): OAuthClientRecord {
  const record: OAuthClientRecord = {
    workspaceId: str(row.workspace_id),
    app: str(row.app),
    config: fromJson(str(row.config)) as Record<string, unknown>,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
  const secret = optStr(row.client_secret);
  if (secret !== undefined) record.clientSecret = secret;
  return record;
}

const toTicket = (row: SqlRow): AuthTicket => ({
  kind: str(row.kind),
  key: str(row.key),
  workspaceId: str(row.workspace_id),
  data: str(row.data),
  expiresAt: Number(row.expires_at),
  createdAt: Number(row.created_at),
});

/** The OAuth clients of a SQL store. */
export function sqlOAuthClients(c: SqlContext): OAuthClientStore {
  return {
    async put(input) {
      const now = c.clock();
      const row = await c.one(
        `INSERT INTO oauth_clients (${CLIENT_COLS}) VALUES ($1, $2, $3, $4, $5, $5)
         ON CONFLICT (workspace_id, app) DO UPDATE SET config = EXCLUDED.config,
           client_secret = EXCLUDED.client_secret, updated_at = EXCLUDED.updated_at
         RETURNING ${CLIENT_COLS}`,
        [input.workspaceId, input.app, JSON.stringify(input.config), input.clientSecret ?? null, now],
      );
      return toClient(row as SqlRow);
    },
    async get(workspaceId, app) {
      const row = await c.one(
        `SELECT ${CLIENT_COLS} FROM oauth_clients WHERE workspace_id = $1 AND app = $2`,
        [workspaceId, app],
      );
      return row && toClient(row);
    },
    async list(workspaceId) {
      const rows = await c.run(
        `SELECT ${CLIENT_COLS} FROM oauth_clients WHERE workspace_id = $1 ORDER BY app`,
        [workspaceId],
      );
      return rows.map(toClient);
    },
    async delete(workspaceId, app) {
      const rows = await c.run(
        "DELETE FROM oauth_clients WHERE workspace_id = $1 AND app = $2 RETURNING app",
        [workspaceId, app],
      );
      return rows.length > 0;
    },
  };
}

/** The auth tickets of a SQL store. */
export function sqlAuthTickets(c: SqlContext): AuthTicketStore {
  return {
    async create(input) {
      const now = c.clock();
      await c.run("DELETE FROM auth_tickets WHERE expires_at <= $1", [now]);
      const [row] = await c.run(
        `INSERT INTO auth_tickets (${TICKET_COLS}) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${TICKET_COLS}`,
        [input.kind, input.key, input.workspaceId, input.data, input.expiresAt, now],
        `Auth ticket ${input.kind} exists`,
      );
      return toTicket(row as SqlRow);
    },
    async get(kind, key) {
      const row = await c.one(
        `SELECT ${TICKET_COLS} FROM auth_tickets WHERE kind = $1 AND key = $2 AND expires_at > $3`,
        [kind, key, c.clock()],
      );
      return row && toTicket(row);
    },
    async take(kind, key) {
      const rows = await c.run(
        `DELETE FROM auth_tickets WHERE kind = $1 AND key = $2 RETURNING ${TICKET_COLS}`,
        [kind, key],
      );
      const row = rows[0];
      return row && Number(row.expires_at) > c.clock() ? toTicket(row) : undefined;
    },
  };
}
