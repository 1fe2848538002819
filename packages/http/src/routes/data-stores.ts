/**
 * `/v1/data_stores`: the workspace's named key-value stores (what `data_store` props use), so that
 * a user can see, seed and clean them. A store is named by its `ds_` id or its name in the path.
 */
import type { DataStoreInfo } from "@hookline/engine";
import { MAX_DATA_STORE_NAME } from "@hookline/engine";
import type { DataStoreRecord } from "@hookline/store";
import Type from "typebox";
import { defineRoute } from "../_define.js";
import { paginate } from "./_paginate.js";
import { Deleted, ListParams } from "./_schemas.js";

const seconds = (ms: number) => Math.floor(ms / 1000);

/** A data store as the API returns it. */
const DataStoreData = Type.Object({
  id: Type.String({ pattern: "^ds_" }),
  name: Type.String(),
  record_count: Type.Integer({ description: "Live (unexpired) records" }),
  created_at: Type.Integer(),
  updated_at: Type.Integer(),
});

/** A record of a data store. */
const RecordData = Type.Object({
  key: Type.String(),
  value: Type.Unknown({ description: "A JSON value" }),
  expires_at: Type.Union([Type.Integer(), Type.Null()], {
    description: "When the record expires, epoch seconds (null: never)",
  }),
  updated_at: Type.Integer(),
});

const storeJson = (ds: DataStoreInfo) => ({
  id: ds.id,
  name: ds.name,
  record_count: ds.recordCount,
  created_at: seconds(ds.createdAt),
  updated_at: seconds(ds.updatedAt),
});

const recordJson = (r: DataStoreRecord) => ({
  key: r.key,
  value: r.value,
  expires_at: r.expiresAt === undefined ? null : Math.ceil(r.expiresAt / 1000),
  updated_at: seconds(r.updatedAt),
});

const STORE = "/v1/data_stores/{id}";
const RECORD = "/v1/data_stores/{id}/records/{key}";

/** The data store routes. */
export const dataStoreRoutes = [
  defineRoute({
    method: "GET",
    path: "/v1/data_stores",
    tag: "Data stores",
    summary: "List the workspace's data stores, by name, with their record counts",
    params: Type.Object(ListParams),
    data: DataStoreData,
    list: true,
    async handler({ hookline, workspaceId, params }) {
      const page = paginate(await hookline.dataStores.list(workspaceId), (s) => s.id, params);
      return { list: page.list.map(storeJson), pageInfo: page.pageInfo, cursor: page.cursor };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/v1/data_stores",
    tag: "Data stores",
    summary: "Create a data store (409 conflict when the name is taken)",
    params: Type.Object({
      name: Type.String({
        minLength: 1,
        maxLength: MAX_DATA_STORE_NAME,
        description: "Unique in the workspace; what a data_store prop's value names",
      }),
    }),
    data: DataStoreData,
    async handler({ hookline, workspaceId, params }) {
      return { data: storeJson(await hookline.dataStores.create(workspaceId, params.name)) };
    },
  }),
  defineRoute({
    method: "GET",
    path: STORE,
    tag: "Data stores",
    summary: "Get a data store by id or name",
    data: DataStoreData,
    async handler({ hookline, workspaceId, path }) {
      return { data: storeJson(await hookline.dataStores.get(workspaceId, path.id as string)) };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: STORE,
    tag: "Data stores",
    summary: "Delete a data store and its records",
    data: Deleted,
    async handler({ hookline, workspaceId, path }) {
      await hookline.dataStores.delete(workspaceId, path.id as string);
      return { data: { deleted: true } };
    },
  }),
  defineRoute({
    method: "GET",
    path: `${STORE}/records`,
    tag: "Data stores",
    summary: "List a data store's live records, by key",
    params: Type.Object(ListParams),
    data: RecordData,
    list: true,
    async handler({ hookline, workspaceId, path, params }) {
      const records = await hookline.dataStores.records(workspaceId, path.id as string);
      const page = paginate(records, (r) => r.key, params);
      return { list: page.list.map(recordJson), pageInfo: page.pageInfo, cursor: page.cursor };
    },
  }),
  defineRoute({
    method: "GET",
    path: RECORD,
    tag: "Data stores",
    summary: "Get one record (the key URL-encoded in the path)",
    data: RecordData,
    async handler({ hookline, workspaceId, path }) {
      const record = await hookline.dataStores.getRecord(workspaceId, path.id as string, path.key as string);
      return { data: recordJson(record) };
    },
  }),
  defineRoute({
    method: "PUT",
    path: RECORD,
    tag: "Data stores",
    summary: "Write one record: a JSON value, with an optional TTL in seconds",
    params: Type.Object({
      value: Type.Unknown({ description: "Any JSON value" }),
      ttl: Type.Optional(
        Type.Union([Type.Number({ exclusiveMinimum: 0 }), Type.Null()], {
          description: "Seconds until the record expires (absent or null: never)",
        }),
      ),
    }),
    data: RecordData,
    async handler({ hookline, workspaceId, path, params }) {
      const record = await hookline.dataStores.putRecord(
        workspaceId,
        path.id as string,
        path.key as string,
        params.value,
        params.ttl ?? null,
      );
      return { data: recordJson(record) };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: RECORD,
    tag: "Data stores",
    summary: "Delete one record",
    data: Deleted,
    async handler({ hookline, workspaceId, path }) {
      await hookline.dataStores.deleteRecord(workspaceId, path.id as string, path.key as string);
      return { data: { deleted: true } };
    },
  }),
];
