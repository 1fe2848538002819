import { StoreError } from "@hookline/store";
import { describe, expect, it } from "vitest";
import { createSqlStore, MIGRATIONS, migrate, pgliteClient } from "../src/index.js";
import { freshPglite } from "./fresh-pglite.js";

describe("SQL store (PGlite)", () => {
  it("refuses a body JSON cannot hold as invalid, naming it, and writes nothing of the commit", async () => {
    const db = await freshPglite();
    try {
      const store = await createSqlStore(pgliteClient(db));
      const ws = await store.workspaces.create({ name: "json" });
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      for (const [body, field] of [
        [10n, "events[1].body"],
        [cyclic, "events[1].body"],
      ] as const) {
        const error = await store.emits
          .commit({
            workspaceId: ws.id,
            componentId: "dc_1",
            dedupe: "unique",
            events: [
              { channel: "default", ts: 1, eventId: "a", body: { fine: true } },
              { channel: "default", ts: 2, eventId: "b", body },
            ],
          })
          .catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(StoreError);
        expect(error).toMatchObject({ code: "invalid", field });
      }
      expect((await store.events.list(ws.id, "dc_1")).items).toEqual([]);
      expect(await store.dedupe.get("dc_1")).toBeUndefined();
      await store.close();
    } finally {
      await db.close();
    }
  }, 30_000);

  it("keeps what was stored before the JSON columns became text (migration 3)", async () => {
    const db = await freshPglite();
    try {
      const client = pgliteClient(db);
      await migrate(
        client,
        MIGRATIONS.filter((m) => m.id < 3),
      );
      await client.query(
        `INSERT INTO events (id, workspace_id, emitter_id, channel, ts, body, created_at)
         VALUES ('evt_old', 'ws_old', 'dc_old', 'default', 1, '{"b": 1, "a": [true, null]}'::jsonb, 1)`,
      );
      await client.query(
        `INSERT INTO kv (component_id, key, value) VALUES ('dc_old', 'k', '{"x": "é"}'::jsonb)`,
      );
      await client.query(
        `INSERT INTO deliveries (id, workspace_id, webhook_id, event_id, emitter_id, channel, state, next_attempt_at,
           created_at, updated_at)
         VALUES ('dlv_old', 'ws_old', 'wh_old', 'evt_old', 'dc_old', 'default', 'pending', 1, 1, 1)`,
      );
      const store = await createSqlStore(client);
      expect((await store.events.getById("evt_old"))?.body).toEqual({ a: [true, null], b: 1 });
      expect(await store.kv.get("dc_old", "k")).toEqual({ x: "é" });
      expect((await store.deliveries.get("ws_old", "dlv_old"))?.state).toBe("pending");
      // Retention keeps the old event while its delivery waits, and measures old rows too.
      expect(await store.events.trim("dc_old", { count: 0 })).toBe(0);
      await client.query("UPDATE deliveries SET state = 'succeeded' WHERE id = 'dlv_old'");
      expect(await store.events.trim("dc_old", { count: 0 })).toBe(1);
      await store.close();
    } finally {
      await db.close();
    }
  }, 30_000);
});
