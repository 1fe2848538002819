import { describe, expect, it } from "vitest";
import { MIGRATIONS, migrate, pgliteClient, splitStatements } from "../src/index.js";
import { freshPglite } from "./fresh-pglite.js";

describe("migrations (PGlite)", () => {
  it("migrate applies every migration once; a second run is a no-op", async () => {
    const db = await freshPglite();
    try {
      const client = pgliteClient(db);
      expect(await migrate(client)).toEqual(MIGRATIONS.map((m) => m.id));
      expect(await migrate(client)).toEqual([]);
      const { rows } = await client.query("SELECT id, name FROM hookline_migrations ORDER BY id");
      expect(rows.map((row) => Number(row.id))).toEqual(MIGRATIONS.map((m) => m.id));
      // concurrent calls on one database wait for each other instead of failing
      expect(await Promise.all([migrate(client), migrate(client)])).toEqual([[], []]);
    } finally {
      await db.close();
    }
  }, 30_000);

  it("migration ids are unique and increasing, and statements split cleanly", () => {
    const ids = MIGRATIONS.map((m) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    for (const migration of MIGRATIONS) {
      for (const statement of splitStatements(migration.sql)) expect(statement).not.toMatch(/;\s*$/);
    }
  });
});
