/** Data stores: named key-value stores of a workspace, behind components' `data_store` props. */

/** A named key-value store of a workspace (`ds_...`), as Pipedream's data stores. */
export interface DataStore {
  /** `ds_...` */
  id: string;
  workspaceId: string;
  /** Unique in the workspace; what a `data_store` prop names. */
  name: string;
  createdAt: number;
  /** The last change to the store or one of its records. */
  updatedAt: number;
}

/** One record of a {@link DataStore}. */
export interface DataStoreRecord {
  key: string;
  /** A JSON value. */
  value: unknown;
  /** When the record expires (epoch ms); absent: never. Expired records are never returned. */
  expiresAt?: number;
  updatedAt: number;
}

/** What {@link DataStoreStore.setRecord} did. */
export type DataStoreSetResult =
  /** A new key was written. */
  | "created"
  /** An existing key was overwritten. */
  | "updated"
  /** Nothing was written: the key is new and the store already holds `maxKeys` live keys. */
  | "full";

/**
 * The data stores of every workspace and their records. Record operations take the workspace and
 * the store's id, and `now` (epoch ms): records whose `expiresAt` is at or before `now` are gone
 * (never read, listed or counted; removed when convenient). Keys are sorted by UTF-16 code units.
 */
export interface DataStoreStore {
  /** Creates a store; `conflict` when the workspace has one of that name. */
  create(input: { workspaceId: string; name: string }): Promise<DataStore>;
  /** A store by id, or undefined. */
  get(workspaceId: string, id: string): Promise<DataStore | undefined>;
  /** A store by name, or undefined. */
  getByName(workspaceId: string, name: string): Promise<DataStore | undefined>;
  /** The workspace's stores, sorted by name. */
  list(workspaceId: string): Promise<DataStore[]>;
  /** Deletes a store and its records; false when absent. */
  delete(workspaceId: string, id: string): Promise<boolean>;
  /** A live record, or undefined. */
  getRecord(
    workspaceId: string,
    storeId: string,
    key: string,
    now: number,
  ): Promise<DataStoreRecord | undefined>;
  /**
   * Writes a record (`expiresAt`: when it expires; absent or null: never). A new key past
   * `maxKeys` live keys writes nothing and answers `full`. `not_found` when the store is absent.
   */
  setRecord(
    workspaceId: string,
    storeId: string,
    record: { key: string; value: unknown; expiresAt?: number | null },
    now: number,
    maxKeys?: number,
  ): Promise<DataStoreSetResult>;
  /** Changes when a live record expires (null: never); false when there is no such record. */
  setExpiry(
    workspaceId: string,
    storeId: string,
    key: string,
    expiresAt: number | null,
    now: number,
  ): Promise<boolean>;
  /** Deletes a record; false when there was no live record. */
  deleteRecord(workspaceId: string, storeId: string, key: string, now: number): Promise<boolean>;
  /** Every live record, sorted by key. */
  listRecords(workspaceId: string, storeId: string, now: number): Promise<DataStoreRecord[]>;
  /** How many live records the store holds. */
  count(workspaceId: string, storeId: string, now: number): Promise<number>;
  /** Deletes every record of the store; resolves with how many were live. */
  clear(workspaceId: string, storeId: string, now: number): Promise<number>;
}
