import pg from "pg";
import { expect, it } from "vitest";
import { pgliteWireServer } from "./_servers.js";

it("pg over pglite wire", async () => {
  const s = await pgliteWireServer();
  const c = new pg.Client({ host: "127.0.0.1", port: s.port, user: "postgres", database: "postgres" });
  await c.connect();
  const r = await c.query("select $1::int + 1 as n", [41]);
  await c.query("create table t (id int)");
  await c.query("insert into t values (1),(2)");
  const r2 = await c.query("select count(*)::int as c from t");
  await c.end();
  await s.close();
  expect(r.rows[0].n).toBe(42);
  expect(r2.rows[0].c).toBe(2);
});
