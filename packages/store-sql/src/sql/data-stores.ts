/** Data stores in SQL: `data_stores` and their `data_store_records` (migration 7). */
import { type DataStore, type DataStoreRecord, type DataStoreStore, StoreError } from "@hookline/store";
import { compareText, newDataStore } from "@hookline/store/adapter";
import type { SqlRow } from "../clients.js";
import { fromJson, str, toJson } from "./rows.js";
import type { SqlContext } from "./sql-context.js";

const STORE_COLS = "id, workspace_id, name, created_at, updated_at";
/** A live record of store $2 of workspace $1 at time $3 (the condition, with alias r). */
const LIVE = `r.store_id = $2 AND (r.expires_at IS NULL OR r.expires_at > $3)
  AND EXISTS (SELECT 1 FROM data_stores d WHERE d.id = $2 AND d.workspace_id = $1)`;

const toStore = (row: SqlRow): DataStore => ({
  id: str(row.id),
  workspaceId: str(row.workspace_id),
  name: str(row.name),
  createdAt: Number(row.created_at),
  updatedAt: Number(row.updated_at),
});

function toRecord(row: SqlRow): DataStoreRecord {
  const record: DataStoreRecord = {
    key: str(row.key),
    value: fromJson(row.value),
    updatedAt: Number(row.updated_at),
  };
  if (row.expires_at !== null && row.expires_at !== undefined) record.expiresAt = Number(row.expires_at);
  return record;
}

/** The data stores of a SQL store. */
export function sqlDataStores(c: SqlContext): DataStoreStore {
  return {
    async create(input) {
      const now = c.clock();
      const row = newDataStore(input, now);
      await c.run(
        `INSERT INTO data_stores (${STORE_COLS}) VALUES ($1, $2, $3, $4, $5)`,
        [row.id, row.workspaceId, row.name, now, now],
        `A data store named ${input.name} exists`,
      );
      return row;
    },
    async get(workspaceId, id) {
      const row = await c.one(`SELECT ${STORE_COLS} FROM data_stores WHERE workspace_id = $1 AND id = $2`, [
        workspaceId,
        id,
      ]);
      return row && toStore(row);
    },
    async getByName(workspaceId, name) {
      const row = await c.one(`SELECT ${STORE_COLS} FROM data_stores WHERE workspace_id = $1 AND name = $2`, [
        workspaceId,
        name,
      ]);
      return row && toStore(row);
    },
    async list(workspaceId) {
      const rows = await c.run(`SELECT ${STORE_COLS} FROM data_stores WHERE workspace_id = $1`, [
        workspaceId,
      ]);
      return rows.map(toStore).sort((a, b) => compareText(a.name, b.name));
    },
    async delete(workspaceId, id) {
      return c.transaction(async (tx) => {
        const rows = await c.run(
          "DELETE FROM data_stores WHERE workspace_id = $1 AND id = $2 RETURNING id",
          [workspaceId, id],
          undefined,
          tx,
        );
        if (rows.length === 0) return false;
        await c.run("DELETE FROM data_store_records WHERE store_id = $1", [id], undefined, tx);
        return true;
      });
    },
    async getRecord(workspaceId, storeId, key, now) {
      const row = await c.one(
        `SELECT r.key, r.value, r.expires_at, r.updated_at FROM data_store_records r WHERE ${LIVE} AND r.key = $4`,
        [workspaceId, storeId, now, key],
      );
      return row && toRecord(row);
    },
    async setRecord(workspaceId, storeId, record, now, maxKeys) {
      const value = toJson(record.value, "value");
      if (value === null) throw new StoreError("invalid", "value must be a JSON value", "value");
      return c.transaction(async (tx) => {
        // The store row is locked: concurrent writers of one store count its keys in turn.
        const store = await c.run(
          "UPDATE data_stores SET updated_at = $3 WHERE workspace_id = $1 AND id = $2 RETURNING id",
          [workspaceId, storeId, c.clock()],
          undefined,
          tx,
        );
        if (store.length === 0) throw new StoreError("not_found", `No data store ${storeId}`);
        await c.run(
          "DELETE FROM data_store_records WHERE store_id = $1 AND expires_at <= $2",
          [storeId, now],
          undefined,
          tx,
        );
        const exists =
          (
            await c.run(
              "SELECT 1 FROM data_store_records WHERE store_id = $1 AND key = $2",
              [storeId, record.key],
              undefined,
              tx,
            )
          ).length > 0;
        if (!exists && maxKeys !== undefined) {
          const [row] = await c.run(
            "SELECT count(*) AS n FROM data_store_records WHERE store_id = $1",
            [storeId],
            undefined,
            tx,
          );
          if (Number(row?.n ?? 0) >= maxKeys) return "full";
        }
        await c.run(
          `INSERT INTO data_store_records (store_id, key, value, expires_at, updated_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (store_id, key) DO UPDATE
           SET value = excluded.value, expires_at = excluded.expires_at, updated_at = excluded.updated_at`,
          [
            storeId,
            record.key,
            value,
            typeof record.expiresAt === "number" ? record.expiresAt : null,
            c.clock(),
          ],
          undefined,
          tx,
        );
        return exists ? "updated" : "created";
      });
    },
    async setExpiry(workspaceId, storeId, key, expiresAt, now) {
      const rows = await c.run(
        `UPDATE data_store_records r SET expires_at = $5 WHERE ${LIVE} AND r.key = $4 RETURNING r.key`,
        [workspaceId, storeId, now, key, expiresAt],
      );
      return rows.length > 0;
    },
    async deleteRecord(workspaceId, storeId, key, now) {
      const rows = await c.run(
        `DELETE FROM data_store_records r
         WHERE r.store_id = $2 AND r.key = $4
           AND EXISTS (SELECT 1 FROM data_stores d WHERE d.id = $2 AND d.workspace_id = $1)
         RETURNING (r.expires_at IS NULL OR r.expires_at > $3) AS live`,
        [workspaceId, storeId, now, key],
      );
      return rows.some((row) => row.live === true || row.live === "t");
    },
    async listRecords(workspaceId, storeId, now) {
      const rows = await c.run(
        `SELECT r.key, r.value, r.expires_at, r.updated_at FROM data_store_records r WHERE ${LIVE}`,
        [workspaceId, storeId, now],
      );
      return rows.map(toRecord).sort((a, b) => compareText(a.key, b.key));
    },
    async count(workspaceId, storeId, now) {
      const row = await c.one(`SELECT count(*) AS n FROM data_store_records r WHERE ${LIVE}`, [
        workspaceId,
        storeId,
        now,
      ]);
      return Number(row?.n ?? 0);
    },
    async clear(workspaceId, storeId, now) {
      const rows = await c.run(
        `DELETE FROM data_store_records r
         WHERE r.store_id = $2 AND EXISTS (SELECT 1 FROM data_stores d WHERE d.id = $2 AND d.workspace_id = $1)
         RETURNING (r.expires_at IS NULL OR r.expires_at > $3) AS live`,
        [workspaceId, storeId, now],
      );
      return rows.filter((row) => row.live === true || row.live === "t").length;
    },
  };
}
