/**
 * Data stores: the named key-value stores of a workspace (Pipedream's data stores). Components
 * reach them through `data_store` props (the runtime's `dataStore` host bridge, built here per
 * workspace); users through {@link DataStoresApi} (`/v1/data_stores`). One owner for the rules:
 * store names, key length, value size, the key cap per store, TTLs.
 */
import { HooklineError } from "@hookline/core";
import type { DataStoreRequest, HostBridges } from "@hookline/runtime";
import { type DataStore, type DataStoreRecord, type Store, StoreError } from "@hookline/store";
import type { Clock } from "./clock.js";
import type { EngineLimits } from "./types.js";

/** A data store and how many live records it holds. */
export interface DataStoreInfo extends DataStore {
  recordCount: number;
}

/** The workspace's data stores (`ds_...`), as users see and seed them. */
export interface DataStoresApi {
  /** Every store of the workspace, by name. */
  list(workspaceId: string): Promise<DataStoreInfo[]>;
  /** Creates a store: 409 `conflict` when the name is taken, 422 `invalid_data_store` for a bad name. */
  create(workspaceId: string, name: string): Promise<DataStoreInfo>;
  /** A store by `ds_` id or name (404 `not_found`). */
  get(workspaceId: string, ref: string): Promise<DataStoreInfo>;
  /** Deletes a store and its records (404 `not_found`). */
  delete(workspaceId: string, ref: string): Promise<void>;
  /** The store's live records, sorted by key. */
  records(workspaceId: string, ref: string): Promise<DataStoreRecord[]>;
  /** One record (404 `not_found`). */
  getRecord(workspaceId: string, ref: string, key: string): Promise<DataStoreRecord>;
  /**
   * Writes a record; `ttl` in seconds (absent or null: never expires). 413
   * `data_store_value_too_large`, 409 `data_store_full`, 422 `invalid_data_store` (key, ttl).
   */
  putRecord(
    workspaceId: string,
    ref: string,
    key: string,
    value: unknown,
    ttl?: number | null,
  ): Promise<DataStoreRecord>;
  /** Deletes a record (404 `not_found`). */
  deleteRecord(workspaceId: string, ref: string, key: string): Promise<void>;
}

/** Longest key, in characters. */
export const MAX_DATA_STORE_KEY = 1024;
/** Longest store name, in characters. */
export const MAX_DATA_STORE_NAME = 200;

/** What the data store functions need from the engine. @internal */
export interface DataStoreDeps {
  store: Store;
  clock: Clock;
  limits: Pick<EngineLimits, "maxDataStoreKeys" | "maxDataStoreValueBytes">;
}

const invalid = (field: string, message: string) =>
  new HooklineError("invalid_data_store", `${field}: ${message}`, { field });

/** Checks a new store's name. */
function checkName(name: unknown): string {
  if (typeof name !== "string" || name.length === 0 || name.length > MAX_DATA_STORE_NAME)
    throw invalid("name", `a data store's name is 1 to ${MAX_DATA_STORE_NAME} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(name))
    throw invalid("name", "a data store's name has no control characters");
  if (name.startsWith("ds_")) throw invalid("name", `"ds_" starts data store ids, not names`);
  return name;
}

function checkKey(key: unknown): string {
  if (typeof key !== "string") throw invalid("key", "a key is a string");
  if (key.length > MAX_DATA_STORE_KEY)
    throw invalid("key", `a key is at most ${MAX_DATA_STORE_KEY} characters (got ${key.length})`);
  return key;
}

/** When a record with `ttl` seconds expires (null, or a ttl absent, null or 0: never). */
function expiryOf(ttl: unknown, now: number): number | null {
  if (ttl === undefined || ttl === null || ttl === 0) return null;
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl <= 0)
    throw invalid("ttl", `a ttl is a positive number of seconds, got ${JSON.stringify(ttl)}`);
  return now + Math.ceil(ttl * 1000);
}

/** The JSON text of a value, within the size limit. */
function checkValue(deps: DataStoreDeps, key: string, value: unknown): void {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    text = undefined;
  }
  if (text === undefined) throw invalid("value", `the value of ${JSON.stringify(key)} is not JSON`);
  const bytes = Buffer.byteLength(text);
  const max = deps.limits.maxDataStoreValueBytes;
  if (bytes > max)
    throw new HooklineError(
      "data_store_value_too_large",
      `the value of ${JSON.stringify(key)} is ${bytes} bytes of JSON; a data store value is at most ${max} (limits.maxDataStoreValueBytes)`,
      { key, bytes, max },
    );
}

/** A store by `ds_` id or name, or undefined. */
function find(deps: DataStoreDeps, workspaceId: string, ref: string): Promise<DataStore | undefined> {
  return ref.startsWith("ds_")
    ? deps.store.dataStores.get(workspaceId, ref)
    : deps.store.dataStores.getByName(workspaceId, ref);
}

async function findOrThrow(deps: DataStoreDeps, workspaceId: string, ref: string): Promise<DataStore> {
  const found = await find(deps, workspaceId, ref);
  if (!found) throw new HooklineError("not_found", `No data store ${ref} in this workspace`);
  return found;
}

/** A store by name, created when missing (as choosing a new store in a data_store prop does). */
async function findOrCreate(deps: DataStoreDeps, workspaceId: string, ref: string): Promise<DataStore> {
  const found = await find(deps, workspaceId, ref);
  if (found) return found;
  if (ref.startsWith("ds_")) throw new HooklineError("not_found", `No data store ${ref} in this workspace`);
  try {
    return await deps.store.dataStores.create({ workspaceId, name: checkName(ref) });
  } catch (error) {
    // Created meanwhile by another writer: use it.
    if (error instanceof StoreError && error.code === "conflict") return findOrThrow(deps, workspaceId, ref);
    throw error;
  }
}

/** Writes one record under the limits. */
async function write(
  deps: DataStoreDeps,
  ds: DataStore,
  key: string,
  value: unknown,
  ttl: unknown,
): Promise<void> {
  checkKey(key);
  checkValue(deps, key, value);
  const now = deps.clock.now();
  const expiresAt = expiryOf(ttl, now);
  const max = deps.limits.maxDataStoreKeys;
  const result = await deps.store.dataStores.setRecord(
    ds.workspaceId,
    ds.id,
    { key, value, expiresAt },
    now,
    max,
  );
  if (result === "full")
    throw new HooklineError(
      "data_store_full",
      `data store ${ds.name} holds ${max} keys (limits.maxDataStoreKeys): delete some before adding ${JSON.stringify(key)}`,
      { store: ds.id, max },
    );
}

/**
 * The runtime's `dataStore` bridge for the components of one workspace: each call names its store
 * (the prop's value: a name or a `ds_` id). A named store that does not exist yet reads as empty
 * and is created by its first write. Errors reach the component as `Error`s whose message starts
 * with their code (`data_store_full: ...`). @internal
 */
export function dataStoreBridge(
  deps: DataStoreDeps,
  workspaceId: string,
): NonNullable<HostBridges["dataStore"]> {
  const { dataStores } = deps.store;
  return async (request: DataStoreRequest) => {
    try {
      const ref = String(request.store);
      const key = request.key ?? "";
      const now = deps.clock.now();
      if (request.op === "set") {
        await write(deps, await findOrCreate(deps, workspaceId, ref), key, request.value, request.ttl);
        return undefined;
      }
      const ds = await find(deps, workspaceId, ref);
      if (!ds) {
        if (ref.startsWith("ds_"))
          throw new HooklineError("not_found", `No data store ${ref} in this workspace`);
        return {
          get: undefined,
          has: false,
          delete: false,
          keys: [],
          entries: [],
          clear: undefined,
          setTtl: false,
        }[request.op];
      }
      switch (request.op) {
        case "get":
          return (await dataStores.getRecord(workspaceId, ds.id, key, now))?.value;
        case "has":
          return (await dataStores.getRecord(workspaceId, ds.id, key, now)) !== undefined;
        case "delete":
          return dataStores.deleteRecord(workspaceId, ds.id, key, now);
        case "keys":
          return (await dataStores.listRecords(workspaceId, ds.id, now)).map((r) => r.key);
        case "entries":
          return (await dataStores.listRecords(workspaceId, ds.id, now)).map((r) => [r.key, r.value]);
        case "clear":
          await dataStores.clear(workspaceId, ds.id, now);
          return undefined;
        case "setTtl":
          return dataStores.setExpiry(workspaceId, ds.id, key, expiryOf(request.ttl, now), now);
        default:
          throw new Error(`unknown data store operation ${String(request.op)}`);
      }
    } catch (error) {
      if (error instanceof HooklineError) throw new Error(`${error.code}: ${error.message}`);
      throw error;
    }
  };
}

/** The data stores API. @internal */
export function createDataStoresApi(deps: DataStoreDeps): DataStoresApi {
  const { dataStores } = deps.store;
  const info = async (ds: DataStore): Promise<DataStoreInfo> => ({
    ...ds,
    recordCount: await dataStores.count(ds.workspaceId, ds.id, deps.clock.now()),
  });
  const record = async (ds: DataStore, key: string): Promise<DataStoreRecord> => {
    const found = await dataStores.getRecord(ds.workspaceId, ds.id, checkKey(key), deps.clock.now());
    if (!found)
      throw new HooklineError("not_found", `No record ${JSON.stringify(key)} in data store ${ds.name}`);
    return found;
  };
  return {
    async list(workspaceId) {
      return Promise.all((await dataStores.list(workspaceId)).map(info));
    },
    async create(workspaceId, name) {
      try {
        return info(await dataStores.create({ workspaceId, name: checkName(name) }));
      } catch (error) {
        if (error instanceof StoreError && error.code === "conflict")
          throw new HooklineError("conflict", `A data store named ${name} exists in this workspace`);
        throw error;
      }
    },
    async get(workspaceId, ref) {
      return info(await findOrThrow(deps, workspaceId, ref));
    },
    async delete(workspaceId, ref) {
      const ds = await findOrThrow(deps, workspaceId, ref);
      await dataStores.delete(workspaceId, ds.id);
    },
    async records(workspaceId, ref) {
      const ds = await findOrThrow(deps, workspaceId, ref);
      return dataStores.listRecords(workspaceId, ds.id, deps.clock.now());
    },
    async getRecord(workspaceId, ref, key) {
      return record(await findOrThrow(deps, workspaceId, ref), key);
    },
    async putRecord(workspaceId, ref, key, value, ttl) {
      const ds = await findOrThrow(deps, workspaceId, ref);
      await write(deps, ds, key, value, ttl);
      return record(ds, key);
    },
    async deleteRecord(workspaceId, ref, key) {
      const ds = await findOrThrow(deps, workspaceId, ref);
      if (!(await dataStores.deleteRecord(workspaceId, ds.id, checkKey(key), deps.clock.now())))
        throw new HooklineError("not_found", `No record ${JSON.stringify(key)} in data store ${ds.name}`);
    },
  };
}
