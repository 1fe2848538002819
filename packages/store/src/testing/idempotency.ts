/** Conformance: idempotency keys (`Idempotency-Key` of creating requests). */
import { describe, expect } from "vitest";
import { type SuiteContext, unique } from "./context.js";

const DAY = 24 * 60 * 60 * 1000;

/** Registers the idempotency key tests. */
export function idempotencySuite(t: SuiteContext): void {
  describe("idempotency", () => {
    const claim = (workspaceId: string, key: string, fingerprint: string, extra = {}) =>
      t.store.idempotency.claim({ workspaceId, key, fingerprint, lockMs: 60_000, ttlMs: DAY, ...extra });

    t.test("the first claim wins; later ones read the record, then its answer", async () => {
      const ws = await t.workspace();
      const key = unique("idem");
      expect(await claim(ws, key, "fp1")).toEqual({ claimed: true });
      const held = await claim(ws, key, "fp1");
      expect(held.claimed).toBe(false);
      if (held.claimed) return;
      expect(held.record).toMatchObject({ workspaceId: ws, key, fingerprint: "fp1" });
      expect(held.record.response).toBeUndefined();
      expect(held.record.expiresAt - held.record.createdAt).toBe(DAY);
      await t.store.idempotency.complete(ws, key, { status: 200, body: '{"data":{"id":"wh_1"}}' });
      const answered = await claim(ws, key, "fp2");
      expect(answered).toMatchObject({
        claimed: false,
        record: { fingerprint: "fp1", response: { status: 200, body: '{"data":{"id":"wh_1"}}' } },
      });
    });

    t.test("keys are per workspace", async () => {
      const [a, b] = [await t.workspace(), await t.workspace()];
      const key = unique("idem");
      expect((await claim(a, key, "fp")).claimed).toBe(true);
      expect((await claim(b, key, "fp")).claimed).toBe(true);
    });

    t.test("release frees an unanswered key and leaves an answered one", async () => {
      const ws = await t.workspace();
      const [open, done] = [unique("idem"), unique("idem")];
      await claim(ws, open, "fp");
      await t.store.idempotency.release(ws, open);
      expect((await claim(ws, open, "fp")).claimed).toBe(true);
      await claim(ws, done, "fp");
      await t.store.idempotency.complete(ws, done, { status: 200, body: "{}" });
      await t.store.idempotency.release(ws, done);
      expect((await claim(ws, done, "fp")).claimed).toBe(false);
    });

    t.test("a lapsed claim and an expired record are taken over", async () => {
      const ws = await t.workspace();
      const [lapsed, expired] = [unique("idem"), unique("idem")];
      await claim(ws, lapsed, "fp1", { lockMs: -1 });
      expect(await claim(ws, lapsed, "fp2")).toEqual({ claimed: true });
      const now = await claim(ws, lapsed, "fp3");
      expect(now.claimed === false && now.record.fingerprint).toBe("fp2");
      await claim(ws, expired, "fp1", { ttlMs: -1 });
      await t.store.idempotency.complete(ws, expired, { status: 200, body: "{}" });
      expect(await claim(ws, expired, "fp2")).toEqual({ claimed: true });
    });

    t.test("of concurrent claims exactly one wins", async () => {
      const ws = await t.workspace();
      const key = unique("idem");
      const results = await Promise.all(Array.from({ length: 6 }, () => claim(ws, key, "fp")));
      expect(results.filter((r) => r.claimed)).toHaveLength(1);
    });

    t.test("bodies are kept losslessly", async () => {
      const ws = await t.workspace();
      const key = unique("idem\u0000é");
      await claim(ws, key, "fp");
      const body = '{"data":"\u0000 \ud800 ✓"}';
      await t.store.idempotency.complete(ws, key, { status: 201, body });
      const read = await claim(ws, key, "fp");
      expect(read.claimed === false && read.record.response).toEqual({ status: 201, body });
    });
  });
}
