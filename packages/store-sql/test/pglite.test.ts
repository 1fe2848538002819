import { PGlite } from "@electric-sql/pglite";
import { runStoreConformance } from "@hookline/store/testing";
import { createSqlStore, pgliteClient } from "../src/index.js";

runStoreConformance("pglite", async () => createSqlStore(pgliteClient(await PGlite.create())), {
  timeout: 30_000,
});
