// A child process for data-dir-lock.test.ts: opens the PGlite folder given as argument, writes a row,
// says "ready", and holds it until killed (or until stdin closes, when it closes the database).
import { createSqlStore, openPglite, pgliteClient } from "../src/index.js";

const dir = process.argv[2];
if (!dir) throw new Error("usage: hold-data-dir.ts <dir>");
const db = await openPglite(dir);
const store = await createSqlStore(pgliteClient(db));
await store.workspaces.create({ id: `ws_${process.pid}`, name: "held" });
process.stdout.write("ready\n");
process.stdin.resume();
process.stdin.on("end", async () => {
  await store.close();
  await db.close();
  process.exit(0);
});
