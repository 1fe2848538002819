/** Data stores in memory. */
import { newDataStore } from "../adapter/rows.js";
import { compareText } from "../adapter/text.js";
import { type DataStore, type DataStoreRecord, type DataStoreStore, StoreError } from "../types/index.js";
import { copy } from "./copy.js";
import type { MemoryState } from "./state.js";

/** A store and its records (expired ones included until swept). */
interface Held {
  row: DataStore;
  records: Map<string, DataStoreRecord>;
}

const live = (record: DataStoreRecord | undefined, now: number): record is DataStoreRecord =>
  record !== undefined && (record.expiresAt === undefined || record.expiresAt > now);

/** The data stores of a memory store. */
export function memoryDataStores(s: MemoryState): DataStoreStore {
  const stores = new Map<string, Held>();
  const held = (workspaceId: string, id: string): Held | undefined => {
    s.open();
    const found = stores.get(id);
    return found?.row.workspaceId === workspaceId ? found : undefined;
  };
  const sweep = (h: Held, now: number) => {
    for (const [key, record] of h.records) if (!live(record, now)) h.records.delete(key);
  };
  return {
    async create(input) {
      s.open();
      for (const h of stores.values())
        if (h.row.workspaceId === input.workspaceId && h.row.name === input.name)
          throw new StoreError("conflict", `A data store named ${input.name} exists`);
      const now = s.clock();
      const row = newDataStore(input, now);
      stores.set(row.id, { row, records: new Map() });
      return copy(row);
    },
    async get(workspaceId, id) {
      return copy(held(workspaceId, id)?.row);
    },
    async getByName(workspaceId, name) {
      s.open();
      for (const h of stores.values())
        if (h.row.workspaceId === workspaceId && h.row.name === name) return copy(h.row);
      return undefined;
    },
    async list(workspaceId) {
      s.open();
      return [...stores.values()]
        .filter((h) => h.row.workspaceId === workspaceId)
        .map((h) => copy(h.row))
        .sort((a, b) => compareText(a.name, b.name));
    },
    async delete(workspaceId, id) {
      return held(workspaceId, id) !== undefined && stores.delete(id);
    },
    async getRecord(workspaceId, storeId, key, now) {
      const record = held(workspaceId, storeId)?.records.get(key);
      return live(record, now) ? copy(record) : undefined;
    },
    async setRecord(workspaceId, storeId, input, now, maxKeys) {
      const h = held(workspaceId, storeId);
      if (!h) throw new StoreError("not_found", `No data store ${storeId}`);
      sweep(h, now);
      const exists = h.records.has(input.key);
      if (!exists && maxKeys !== undefined && h.records.size >= maxKeys) return "full";
      const value = copy(input.value);
      const record: DataStoreRecord = { key: input.key, value, updatedAt: s.clock() };
      if (typeof input.expiresAt === "number") record.expiresAt = input.expiresAt;
      h.records.set(input.key, record);
      h.row.updatedAt = record.updatedAt;
      return exists ? "updated" : "created";
    },
    async setExpiry(workspaceId, storeId, key, expiresAt, now) {
      const record = held(workspaceId, storeId)?.records.get(key);
      if (!live(record, now)) return false;
      if (expiresAt === null) delete record.expiresAt;
      else record.expiresAt = expiresAt;
      return true;
    },
    async deleteRecord(workspaceId, storeId, key, now) {
      const h = held(workspaceId, storeId);
      const record = h?.records.get(key);
      if (!h || record === undefined) return false;
      h.records.delete(key);
      return live(record, now);
    },
    async listRecords(workspaceId, storeId, now) {
      const h = held(workspaceId, storeId);
      if (!h) return [];
      return [...h.records.values()]
        .filter((r) => live(r, now))
        .sort((a, b) => compareText(a.key, b.key))
        .map((r) => copy(r));
    },
    async count(workspaceId, storeId, now) {
      const h = held(workspaceId, storeId);
      return h ? [...h.records.values()].filter((r) => live(r, now)).length : 0;
    },
    async clear(workspaceId, storeId, now) {
      const h = held(workspaceId, storeId);
      if (!h) return 0;
      const n = [...h.records.values()].filter((r) => live(r, now)).length;
      h.records.clear();
      return n;
    },
  };
}
