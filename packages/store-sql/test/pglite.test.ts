import type { PGlite } from "@electric-sql/pglite";
import { createFaultPlan, runStoreConformance } from "@hookline/store/testing";
import { createSqlStore, pgliteClient } from "../src/index.js";
import { faultyClient } from "./faulty-client.js";
import { freshPglite } from "./fresh-pglite.js";

const faults = createFaultPlan();
let db: PGlite | undefined;
runStoreConformance(
  "pglite",
  async () => {
    db = await freshPglite();
    return createSqlStore(faultyClient(pgliteClient(db), faults));
  },
  {
    timeout: 30_000,
    notifications: "others",
    faultInjection: faults,
    workflows: true,
    // Another store instance over the same database, as another process sharing it would open.
    multiProcess: () => createSqlStore(pgliteClient(db as PGlite)),
  },
);
