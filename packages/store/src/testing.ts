/**
 * `@hookline/store/testing`: the conformance suite every {@link Store} implementation runs.
 *
 * @packageDocumentation
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ClaimedDelivery, DeployedComponent, EventInput, Store, StoreNotice, Webhook } from "./types.js";
import { StoreError } from "./types.js";

/** Options of {@link runStoreConformance}. */
export interface ConformanceOptions {
  /** Titles of tests to skip (for a known, documented limitation of an adapter). */
  skip?: string[];
  /** Timeout of each test, and of making the store, in milliseconds (vitest's default when absent). */
  timeout?: number;
}

let counter = 0;
const unique = (label: string): string =>
  `${label}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

// Tests that claim rows by time use their own window of (past) time. Each window is below every
// earlier one, so rows left behind by earlier tests of the same store are never due in a later window.
let windowBase = 1_000_000_000_000;
const nextWindow = (): number => {
  windowBase -= 1_000_000_000;
  return windowBase;
};

/**
 * Registers the Store conformance tests (vitest `describe`/`it`) for one implementation. The
 * factory is called once, in `beforeAll`; the store is closed in `afterAll`. Each test makes its own
 * workspaces, so the store may hold rows of earlier tests (or runs).
 *
 * @param name - The implementation's name, shown in the test titles.
 * @param factory - Makes the store under test.
 * @param options - Tests to skip, timeout.
 * @example
 * ```ts
 * import { createMemoryStore } from "@hookline/store";
 * import { runStoreConformance } from "@hookline/store/testing";
 *
 * runStoreConformance("memory", () => createMemoryStore());
 * ```
 */
export function runStoreConformance(
  name: string,
  factory: () => Promise<Store> | Store,
  options: ConformanceOptions = {},
): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store;

    beforeAll(async () => {
      store = await factory();
    }, options.timeout);

    afterAll(async () => {
      if (store) await expect(store.close()).resolves.toBeUndefined();
    });

    const test = (title: string, fn: () => Promise<void>): void => {
      if (options.skip?.includes(title)) it.skip(title, fn);
      else it(title, fn, options.timeout);
    };

    // ---- helpers ------------------------------------------------------------------------------

    const workspace = async (label = "ws"): Promise<string> =>
      (await store.workspaces.create({ name: unique(label) })).id;

    const component = async (
      workspaceId: string,
      extra: { endpointId?: string; slug?: string } = {},
    ): Promise<DeployedComponent> => {
      const sc = await store.savedComponents.create({
        workspaceId,
        code: "export default {}",
        codeHash: unique("hash"),
        filename: "component.mjs",
        bundle: "export default {}",
        description: { name: "Test" },
      });
      return store.deployedComponents.create({
        workspaceId,
        savedComponentId: sc.id,
        name: "Test component",
        slug: extra.slug ?? unique("slug"),
        props: { greeting: "hi" },
        active: true,
        ...(extra.endpointId === undefined ? {} : { endpointId: extra.endpointId }),
      });
    };

    const webhook = async (workspaceId: string, active = true): Promise<Webhook> =>
      store.webhooks.create({
        workspaceId,
        url: "https://example.com/hook",
        name: "Hook",
        active,
        secrets: [{ value: "encrypted-secret", createdAt: 1 }],
      });

    const events = (count: number, ts: number, channel = "default"): EventInput[] =>
      Array.from({ length: count }, (_, i) => ({ channel, ts: ts + i, body: { n: i } }));

    /** A workspace, an emitter, `hooks` active webhooks subscribed to it, and `count` emitted events. */
    const outbox = async (count: number, now: number, hooks = 1) => {
      const ws = await workspace("outbox");
      const emitter = await component(ws);
      const webhooks: Webhook[] = [];
      for (let i = 0; i < hooks; i++) {
        const hook = await webhook(ws);
        await store.subscriptions.create({ workspaceId: ws, emitterId: emitter.id, listenerId: hook.id });
        webhooks.push(hook);
      }
      const appended =
        count > 0 ? await store.events.append(ws, emitter.id, events(count, now), { now }) : [];
      const deliveryIds = appended.flatMap((event) => event.deliveryIds);
      return { ws, emitter, webhooks, appended, deliveryIds };
    };

    /** Claims until nothing is returned; returns only the rows in `ours`. */
    const drain = async (
      ours: Set<string>,
      claim: () => Promise<ClaimedDelivery[]>,
    ): Promise<ClaimedDelivery[]> => {
      const result: ClaimedDelivery[] = [];
      for (let round = 0; round < 100; round++) {
        const rows = await claim();
        if (rows.length === 0) break;
        result.push(...rows.filter((row) => ours.has(row.id)));
      }
      return result;
    };

    const expectStoreError = async (promise: Promise<unknown>, code: string): Promise<void> => {
      const error = await promise.then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(StoreError);
      expect((error as StoreError).code).toBe(code);
    };

    // ---- workspaces ---------------------------------------------------------------------------

    describe("workspaces", () => {
      test("create makes a ws_ id and get returns the workspace", async () => {
        const created = await store.workspaces.create({ name: "Acme" });
        expect(created.id).toMatch(/^ws_/);
        expect(created.name).toBe("Acme");
        expect(typeof created.createdAt).toBe("number");
        expect(await store.workspaces.get(created.id)).toEqual(created);
        expect(await store.workspaces.get("ws_missing")).toBeUndefined();
      });

      test("create accepts an id and refuses a taken one", async () => {
        const id = unique("ws");
        const created = await store.workspaces.create({ id, name: "Given" });
        expect(created.id).toBe(id);
        await expectStoreError(store.workspaces.create({ id, name: "Again" }), "conflict");
      });

      test("list returns every workspace", async () => {
        const a = await workspace();
        const b = await workspace();
        const ids = (await store.workspaces.list()).map((ws) => ws.id);
        expect(ids).toContain(a);
        expect(ids).toContain(b);
      });
    });

    // ---- API keys -----------------------------------------------------------------------------

    describe("apiKeys", () => {
      test("create and findByHash", async () => {
        const ws = await workspace();
        const hash = unique("hash");
        const key = await store.apiKeys.create({ workspaceId: ws, name: "CI", hash, hint: "abcd" });
        expect(key.id).toMatch(/^key_/);
        expect(key).toMatchObject({ workspaceId: ws, name: "CI", hash, hint: "abcd" });
        expect(key.revokedAt).toBeUndefined();
        expect(await store.apiKeys.findByHash(hash)).toEqual(key);
        expect(await store.apiKeys.findByHash(unique("nothing"))).toBeUndefined();
      });

      test("list returns the workspace's keys only", async () => {
        const ws = await workspace();
        const other = await workspace();
        const a = await store.apiKeys.create({ workspaceId: ws, name: "a", hash: unique("h"), hint: "a" });
        const b = await store.apiKeys.create({ workspaceId: ws, name: "b", hash: unique("h"), hint: "b" });
        await store.apiKeys.create({ workspaceId: other, name: "c", hash: unique("h"), hint: "c" });
        expect((await store.apiKeys.list(ws)).map((key) => key.id)).toEqual([a.id, b.id]);
      });

      test("revoked keys are not found by findByHash", async () => {
        const ws = await workspace();
        const other = await workspace();
        const hash = unique("hash");
        const key = await store.apiKeys.create({ workspaceId: ws, name: "k", hash, hint: "k" });
        expect(await store.apiKeys.revoke(other, key.id)).toBe(false);
        expect(await store.apiKeys.findByHash(hash)).toBeDefined();
        expect(await store.apiKeys.revoke(ws, key.id)).toBe(true);
        expect(await store.apiKeys.findByHash(hash)).toBeUndefined();
        expect(await store.apiKeys.revoke(ws, key.id)).toBe(false);
        const listed = await store.apiKeys.list(ws);
        expect(listed).toHaveLength(1);
        expect(typeof listed[0]!.revokedAt).toBe("number");
      });
    });

    // ---- accounts -----------------------------------------------------------------------------

    describe("accounts", () => {
      test("create, get, list by app, update and delete", async () => {
        const ws = await workspace();
        const gh = await store.accounts.create({
          workspaceId: ws,
          app: "github",
          name: "me",
          credentials: "enc1",
        });
        const sl = await store.accounts.create({
          workspaceId: ws,
          app: "slack",
          name: "team",
          credentials: "enc2",
        });
        expect(gh.id).toMatch(/^apn_/);
        expect(await store.accounts.get(ws, gh.id)).toEqual(gh);
        expect((await store.accounts.list(ws)).map((a) => a.id)).toEqual([gh.id, sl.id]);
        expect((await store.accounts.list(ws, { app: "slack" })).map((a) => a.id)).toEqual([sl.id]);
        const updated = await store.accounts.update(ws, gh.id, { credentials: "enc3" });
        expect(updated).toMatchObject({ id: gh.id, name: "me", credentials: "enc3" });
        expect((await store.accounts.get(ws, gh.id))?.credentials).toBe("enc3");
        expect(await store.accounts.update(ws, "apn_missing", { name: "x" })).toBeUndefined();
        expect(await store.accounts.delete(ws, gh.id)).toBe(true);
        expect(await store.accounts.get(ws, gh.id)).toBeUndefined();
        expect(await store.accounts.delete(ws, gh.id)).toBe(false);
      });
    });

    // ---- saved components ---------------------------------------------------------------------

    describe("savedComponents", () => {
      const input = (workspaceId: string, extra: Record<string, unknown> = {}) => ({
        workspaceId,
        code: "export default {}",
        codeHash: "h",
        filename: "c.mjs",
        bundle: "bundle",
        description: { props: { a: { type: "string" } } },
        ...extra,
      });

      test("create, get and list", async () => {
        const ws = await workspace();
        const a = await store.savedComponents.create(input(ws));
        const b = await store.savedComponents.create(input(ws, { key: "k", version: "1.0.0" }));
        expect(a.id).toMatch(/^sc_/);
        expect(a.published).toBe("private");
        expect(a.description).toEqual({ props: { a: { type: "string" } } });
        expect(await store.savedComponents.get(ws, a.id)).toEqual(a);
        expect(await store.savedComponents.get(ws, "sc_missing")).toBeUndefined();
        expect((await store.savedComponents.list(ws)).map((sc) => sc.id)).toEqual([a.id, b.id]);
      });

      test("findByKey finds the newest version, a given version, and public ones of others", async () => {
        const ws = await workspace();
        const other = await workspace();
        const key = unique("key");
        await store.savedComponents.create(input(ws, { key, version: "1.9.0" }));
        const newest = await store.savedComponents.create(input(ws, { key, version: "1.10.0" }));
        const old = await store.savedComponents.create(input(ws, { key, version: "0.1.0" }));
        expect((await store.savedComponents.findByKey(ws, key))?.id).toBe(newest.id);
        expect((await store.savedComponents.findByKey(ws, key, "0.1.0"))?.id).toBe(old.id);
        expect(await store.savedComponents.findByKey(ws, key, "9.9.9")).toBeUndefined();
        // private ones are not visible to other workspaces
        expect(await store.savedComponents.findByKey(other, key)).toBeUndefined();
        const pub = await store.savedComponents.create(
          input(ws, { key, version: "2.0.0", published: "public" }),
        );
        expect((await store.savedComponents.findByKey(other, key))?.id).toBe(pub.id);
        expect(await store.savedComponents.findByKey(other, key, "1.10.0")).toBeUndefined();
        // the workspace's own version wins a tie with a public one
        const own = await store.savedComponents.create(input(other, { key, version: "2.0.0" }));
        expect((await store.savedComponents.findByKey(other, key, "2.0.0"))?.id).toBe(own.id);
      });

      test("create refuses a duplicate key and version in one workspace", async () => {
        const ws = await workspace();
        const key = unique("key");
        await store.savedComponents.create(input(ws, { key, version: "1.0.0" }));
        await expectStoreError(
          store.savedComponents.create(input(ws, { key, version: "1.0.0" })),
          "conflict",
        );
        const other = await workspace();
        await expect(
          store.savedComponents.create(input(other, { key, version: "1.0.0" })),
        ).resolves.toBeDefined();
      });
    });

    // ---- deployed components ------------------------------------------------------------------

    describe("deployedComponents", () => {
      test("create and get", async () => {
        const ws = await workspace();
        const dc = await component(ws);
        expect(dc.id).toMatch(/^dc_/);
        expect(dc).toMatchObject({
          workspaceId: ws,
          name: "Test component",
          props: { greeting: "hi" },
          active: true,
        });
        expect(await store.deployedComponents.get(ws, dc.id)).toEqual(dc);
        expect(await store.deployedComponents.get(ws, "dc_missing")).toBeUndefined();
      });

      test("getBySlug and getByEndpoint", async () => {
        const ws = await workspace();
        const endpointId = unique("en");
        const dc = await component(ws, { endpointId });
        expect((await store.deployedComponents.getBySlug(ws, dc.slug))?.id).toBe(dc.id);
        expect(await store.deployedComponents.getBySlug(ws, "missing")).toBeUndefined();
        expect((await store.deployedComponents.getByEndpoint(endpointId))?.id).toBe(dc.id);
        expect(await store.deployedComponents.getByEndpoint(unique("en"))).toBeUndefined();
      });

      test("list returns the workspace's components", async () => {
        const ws = await workspace();
        const a = await component(ws);
        const b = await component(ws);
        await component(await workspace());
        expect((await store.deployedComponents.list(ws)).map((dc) => dc.id)).toEqual([a.id, b.id]);
      });

      test("slug is unique per workspace", async () => {
        const ws = await workspace();
        const other = await workspace();
        const slug = unique("slug");
        await component(ws, { slug });
        await expectStoreError(component(ws, { slug }), "conflict");
        await expect(component(other, { slug })).resolves.toBeDefined();
        const second = await component(ws);
        await expectStoreError(store.deployedComponents.update(ws, second.id, { slug }), "conflict");
      });

      test("update changes the given fields", async () => {
        const ws = await workspace();
        const dc = await component(ws, { endpointId: unique("en") });
        const updated = await store.deployedComponents.update(ws, dc.id, {
          name: "Renamed",
          props: { greeting: "hello" },
          active: false,
          endpointId: null,
        });
        expect(updated).toMatchObject({
          id: dc.id,
          name: "Renamed",
          props: { greeting: "hello" },
          active: false,
        });
        expect(updated?.endpointId).toBeUndefined();
        expect(updated?.slug).toBe(dc.slug);
        expect(await store.deployedComponents.get(ws, dc.id)).toEqual(updated);
        expect(await store.deployedComponents.update(ws, "dc_missing", { name: "x" })).toBeUndefined();
      });

      test("delete cascades to db keys, dedupe state, timer and subscriptions", async () => {
        const ws = await workspace();
        const dc = await component(ws);
        const keep = await component(ws);
        const hook = await webhook(ws);
        await store.kv.set(dc.id, "a", 1);
        await store.kv.set(keep.id, "a", 1);
        await store.dedupe.set(dc.id, { seen: [1] });
        await store.timers.upsert({ componentId: dc.id, workspaceId: ws, nextAt: nextWindow() });
        await store.subscriptions.create({ workspaceId: ws, emitterId: dc.id, listenerId: hook.id });
        await store.subscriptions.create({ workspaceId: ws, emitterId: keep.id, listenerId: hook.id });
        expect(await store.deployedComponents.delete(ws, dc.id)).toBe(true);
        expect(await store.deployedComponents.get(ws, dc.id)).toBeUndefined();
        expect(await store.kv.list(dc.id)).toEqual([]);
        expect(await store.kv.get(keep.id, "a")).toBe(1);
        expect(await store.dedupe.get(dc.id)).toBeUndefined();
        expect(await store.timers.get(ws, dc.id)).toBeUndefined();
        const subs = await store.subscriptions.list(ws);
        expect(subs.map((sub) => sub.emitterId)).toEqual([keep.id]);
        expect(await store.deployedComponents.delete(ws, dc.id)).toBe(false);
      });
    });

    // ---- dedupe and kv ------------------------------------------------------------------------

    describe("dedupe", () => {
      test("get and set", async () => {
        const dc = unique("dc");
        expect(await store.dedupe.get(dc)).toBeUndefined();
        await store.dedupe.set(dc, { ids: ["a", "b"] });
        expect(await store.dedupe.get(dc)).toEqual({ ids: ["a", "b"] });
        await store.dedupe.set(dc, { ids: ["c"] });
        expect(await store.dedupe.get(dc)).toEqual({ ids: ["c"] });
      });
    });

    describe("kv", () => {
      test("get, set, delete and list", async () => {
        const dc = unique("dc");
        const other = unique("dc");
        expect(await store.kv.get(dc, "missing")).toBeUndefined();
        await store.kv.set(dc, "b", { nested: [1, 2] });
        await store.kv.set(dc, "a", "text");
        await store.kv.set(other, "a", "other");
        expect(await store.kv.get(dc, "b")).toEqual({ nested: [1, 2] });
        await store.kv.set(dc, "a", 42);
        expect(await store.kv.get(dc, "a")).toBe(42);
        expect(await store.kv.list(dc)).toEqual([
          { key: "a", value: 42 },
          { key: "b", value: { nested: [1, 2] } },
        ]);
        expect(await store.kv.delete(dc, "a")).toBe(true);
        expect(await store.kv.delete(dc, "a")).toBe(false);
        expect(await store.kv.get(dc, "a")).toBeUndefined();
        expect(await store.kv.get(other, "a")).toBe("other");
      });

      test("returned values are copies", async () => {
        const dc = unique("dc");
        const value = { list: [1] };
        await store.kv.set(dc, "k", value);
        value.list.push(2);
        const read = (await store.kv.get(dc, "k")) as { list: number[] };
        expect(read).toEqual({ list: [1] });
        read.list.push(3);
        expect(await store.kv.get(dc, "k")).toEqual({ list: [1] });
      });
    });

    // ---- events and the outbox ----------------------------------------------------------------

    describe("events", () => {
      test("append stores events with evt_ ids and increasing seq", async () => {
        const ws = await workspace();
        const dc = await component(ws);
        const appended = await store.events.append(ws, dc.id, [
          { channel: "default", ts: 1, body: { a: 1 }, summary: "first", eventId: "e1" },
          { channel: "default", ts: 2, body: { a: 2 } },
        ]);
        expect(appended).toHaveLength(2);
        expect(appended[0]!.id).toMatch(/^evt_/);
        expect(appended[0]).toMatchObject({
          workspaceId: ws,
          emitterId: dc.id,
          channel: "default",
          summary: "first",
          eventId: "e1",
          ts: 1,
          body: { a: 1 },
          deliveryIds: [],
        });
        expect(appended[1]!.seq).toBeGreaterThan(appended[0]!.seq);
        const later = await store.events.append(ws, dc.id, [{ channel: "default", ts: 3, body: null }]);
        expect(later[0]!.seq).toBeGreaterThan(appended[1]!.seq);
      });

      test("outbox: one pending delivery per matching active webhook subscription", async () => {
        const now = nextWindow();
        const ws = await workspace();
        const emitter = await component(ws);
        const otherEmitter = await component(ws);
        const active = await webhook(ws);
        const inactive = await webhook(ws, false);
        const otherEmitterHook = await webhook(ws);
        const ordersHook = await webhook(ws);
        const explicitDefault = await webhook(ws);
        const sub = (emitterId: string, listenerId: string, eventName?: string | null) =>
          store.subscriptions.create({
            workspaceId: ws,
            emitterId,
            listenerId,
            ...(eventName === undefined ? {} : { eventName }),
          });
        await sub(emitter.id, active.id, null);
        await sub(emitter.id, inactive.id);
        await sub(otherEmitter.id, otherEmitterHook.id);
        await sub(emitter.id, ordersHook.id, "orders");
        await sub(emitter.id, explicitDefault.id, "default");

        const [plain, order] = await store.events.append(
          ws,
          emitter.id,
          [
            { channel: "default", ts: now, body: { kind: "plain" } },
            { channel: "orders", ts: now, body: { kind: "order" } },
          ],
          { now },
        );
        expect(plain!.deliveryIds).toHaveLength(2);
        expect(order!.deliveryIds).toHaveLength(1);

        const forPlain = await Promise.all(plain!.deliveryIds.map((id) => store.deliveries.get(ws, id)));
        expect(forPlain.map((d) => d?.webhookId).sort()).toEqual([active.id, explicitDefault.id].sort());
        for (const delivery of forPlain) {
          expect(delivery).toMatchObject({
            workspaceId: ws,
            eventId: plain!.id,
            emitterId: emitter.id,
            channel: "default",
            state: "pending",
            attempts: 0,
            nextAttemptAt: now,
          });
          expect(delivery!.id).toMatch(/^dlv_/);
          expect(delivery!.event?.body).toEqual({ kind: "plain" });
        }
        const forOrder = await store.deliveries.get(ws, order!.deliveryIds[0]!);
        expect(forOrder).toMatchObject({ webhookId: ordersHook.id, channel: "orders", eventId: order!.id });

        const listed = await store.deliveries.list(ws, { limit: 100 });
        expect(listed.items.map((d) => d.webhookId)).not.toContain(inactive.id);
        expect(listed.items.map((d) => d.webhookId)).not.toContain(otherEmitterHook.id);
        expect(listed.items).toHaveLength(3);
      });

      test("outbox: subscriptions and webhooks of another workspace never receive", async () => {
        const ws = await workspace();
        const other = await workspace();
        const emitter = await component(ws);
        const foreignHook = await webhook(other);
        // a subscription in the other workspace naming this emitter
        await store.subscriptions.create({
          workspaceId: other,
          emitterId: emitter.id,
          listenerId: foreignHook.id,
        });
        const [event] = await store.events.append(ws, emitter.id, events(1, 1));
        expect(event!.deliveryIds).toEqual([]);
      });

      test("list pages through 25 events newest first, each once", async () => {
        const ws = await workspace();
        const dc = await component(ws);
        const appended = await store.events.append(ws, dc.id, events(25, 1000));
        const seen: string[] = [];
        let cursor: string | undefined;
        const sizes: number[] = [];
        for (let page = 0; page < 10; page++) {
          const result = await store.events.list(ws, dc.id, {
            limit: 10,
            ...(cursor ? { before: cursor } : {}),
          });
          sizes.push(result.items.length);
          seen.push(...result.items.map((event) => event.id));
          cursor = result.nextCursor;
          if (!cursor) break;
        }
        expect(sizes).toEqual([10, 10, 5]);
        expect(seen).toEqual(appended.map((event) => event.id).reverse());
      });

      test("list: default limit 10, maximum 100, after cursor, channel filter", async () => {
        const ws = await workspace();
        const dc = await component(ws);
        const appended = await store.events.append(ws, dc.id, [
          ...events(60, 1, "default"),
          ...events(50, 100, "orders"),
        ]);
        expect((await store.events.list(ws, dc.id)).items).toHaveLength(10);
        expect((await store.events.list(ws, dc.id, { limit: 1000 })).items).toHaveLength(100);
        const orders = await store.events.list(ws, dc.id, { channel: "orders", limit: 100 });
        expect(orders.items).toHaveLength(50);
        expect(orders.items.every((event) => event.channel === "orders")).toBe(true);
        expect(orders.nextCursor).toBeUndefined();
        // after: only newer events, still newest first
        const firstPage = await store.events.list(ws, dc.id, { limit: 100 });
        const all = [...firstPage.items];
        let cursor = firstPage.nextCursor;
        while (cursor) {
          const next = await store.events.list(ws, dc.id, { limit: 100, before: cursor });
          all.push(...next.items);
          cursor = next.nextCursor;
        }
        expect(all).toHaveLength(110);
        // the cursor of an event is the nextCursor of a page ending at it
        const pageTo = await store.events.list(ws, dc.id, { limit: 6 });
        expect(pageTo.items.at(-1)!.id).toBe(appended[104]!.id);
        const newer = await store.events.list(ws, dc.id, { after: pageTo.nextCursor!, limit: 100 });
        expect(newer.items.map((event) => event.id)).toEqual(
          appended
            .slice(105)
            .map((event) => event.id)
            .reverse(),
        );
        expect(await store.events.list(ws, "dc_other")).toEqual({ items: [] });
      });

      test("get and getById", async () => {
        const ws = await workspace();
        const other = await workspace();
        const dc = await component(ws);
        const [event] = await store.events.append(ws, dc.id, [{ channel: "default", ts: 5, body: { x: 1 } }]);
        const { deliveryIds: _ignored, ...stored } = event!;
        expect(await store.events.get(ws, event!.id)).toEqual(stored);
        expect(await store.events.get(other, event!.id)).toBeUndefined();
        expect(await store.events.getById(event!.id)).toEqual(stored);
        expect(await store.events.getById("evt_missing")).toBeUndefined();
      });

      test("delete some or all events; their pending deliveries fail", async () => {
        const { ws, emitter, appended } = await outbox(5, nextWindow());
        const other = await workspace();
        const first = appended[0]!;
        expect(await store.events.delete(other, emitter.id)).toBe(0);
        expect(await store.events.delete(ws, emitter.id, [first.id])).toBe(1);
        expect(await store.events.get(ws, first.id)).toBeUndefined();
        const delivery = await store.deliveries.get(ws, first.deliveryIds[0]!);
        expect(delivery).toMatchObject({ state: "failed", lastError: "event_deleted" });
        expect(await store.events.delete(ws, emitter.id)).toBe(4);
        expect((await store.events.list(ws, emitter.id)).items).toEqual([]);
      });

      test("trim keeps the newest events", async () => {
        const ws = await workspace();
        const dc = await component(ws);
        const appended = await store.events.append(ws, dc.id, events(12, 1));
        expect(await store.events.trim(dc.id, 5)).toBe(7);
        const left = await store.events.list(ws, dc.id, { limit: 100 });
        expect(left.items.map((event) => event.id)).toEqual(
          appended
            .slice(7)
            .map((event) => event.id)
            .reverse(),
        );
        expect(await store.events.trim(dc.id, 5)).toBe(0);
      });
    });

    // ---- logs ---------------------------------------------------------------------------------

    describe("logs", () => {
      const lines = (count: number) =>
        Array.from({ length: count }, (_, i) => ({
          level: i % 2 ? "error" : "info",
          message: `line ${i}`,
          ts: i,
        }));

      test("append and list oldest first with a cursor", async () => {
        const ws = await workspace();
        const dc = unique("dc");
        const stored = await store.logs.append(ws, dc, lines(7));
        expect(stored).toHaveLength(7);
        expect(stored[0]).toMatchObject({
          workspaceId: ws,
          componentId: dc,
          level: "info",
          message: "line 0",
          ts: 0,
        });
        const first = await store.logs.list(ws, dc, { limit: 5 });
        expect(first.items.map((line) => line.message)).toEqual([
          "line 0",
          "line 1",
          "line 2",
          "line 3",
          "line 4",
        ]);
        expect(first.nextCursor).toBeDefined();
        const second = await store.logs.list(ws, dc, { limit: 5, after: first.nextCursor! });
        expect(second.items.map((line) => line.message)).toEqual(["line 5", "line 6"]);
        expect(second.nextCursor).toBeUndefined();
        await store.logs.append(ws, dc, [{ level: "info", message: "late", ts: 9 }]);
        const tail = await store.logs.list(ws, dc, { after: String(stored[6]!.seq) });
        expect(tail.items.map((line) => line.message)).toEqual(["late"]);
      });

      test("trim keeps the newest lines", async () => {
        const ws = await workspace();
        const dc = unique("dc");
        await store.logs.append(ws, dc, lines(10));
        expect(await store.logs.trim(dc, 3)).toBe(7);
        const left = await store.logs.list(ws, dc, { limit: 100 });
        expect(left.items.map((line) => line.message)).toEqual(["line 7", "line 8", "line 9"]);
      });
    });

    // ---- webhooks -----------------------------------------------------------------------------

    describe("webhooks", () => {
      test("create, get and list", async () => {
        const ws = await workspace();
        const hook = await store.webhooks.create({
          workspaceId: ws,
          url: "https://example.com/a",
          description: "desc",
          active: true,
          secrets: [{ value: "enc", createdAt: 1, expiresAt: 2 }],
        });
        expect(hook.id).toMatch(/^wh_/);
        expect(hook).toMatchObject({ url: "https://example.com/a", description: "desc", active: true });
        expect(hook.secrets).toEqual([{ value: "enc", createdAt: 1, expiresAt: 2 }]);
        expect(await store.webhooks.get(ws, hook.id)).toEqual(hook);
        const second = await webhook(ws);
        expect((await store.webhooks.list(ws)).map((h) => h.id)).toEqual([hook.id, second.id]);
      });

      test("update changes the given fields; null clears", async () => {
        const ws = await workspace();
        const hook = await webhook(ws);
        const updated = await store.webhooks.update(ws, hook.id, {
          url: "https://example.com/b",
          active: false,
          name: null,
          disabledReason: "gone",
          secrets: [
            { value: "old", createdAt: 1, expiresAt: 5 },
            { value: "new", createdAt: 2 },
          ],
        });
        expect(updated).toMatchObject({
          url: "https://example.com/b",
          active: false,
          disabledReason: "gone",
        });
        expect(updated?.name).toBeUndefined();
        expect(updated?.secrets).toHaveLength(2);
        expect(await store.webhooks.get(ws, hook.id)).toEqual(updated);
        expect(await store.webhooks.update(ws, "wh_missing", { active: true })).toBeUndefined();
      });

      test("delete removes subscriptions and cancels pending deliveries", async () => {
        const now = nextWindow();
        const { ws, emitter, webhooks, deliveryIds } = await outbox(3, now, 2);
        const [gone, kept] = webhooks as [Webhook, Webhook];
        const goneIds = new Set(
          (await store.deliveries.list(ws, { webhookId: gone.id })).items.map((delivery) => delivery.id),
        );
        // one delivery of the deleted webhook is already done and must stay as it is
        const claimed = await drain(new Set(goneIds), () =>
          store.deliveries.claim({ owner: "w", now, leaseMs: 60_000, limit: 100 }),
        );
        const done = claimed[0]!;
        expect(
          await store.deliveries.complete(done.id, "w", { state: "succeeded", status: 200, at: now }),
        ).toBe(true);
        expect(await store.webhooks.delete(ws, gone.id)).toBe(true);
        expect(await store.webhooks.get(ws, gone.id)).toBeUndefined();
        expect(
          (await store.subscriptions.list(ws, { emitterId: emitter.id })).map((s) => s.listenerId),
        ).toEqual([kept.id]);
        for (const id of deliveryIds) {
          const delivery = await store.deliveries.get(ws, id);
          if (id === done.id) expect(delivery?.state).toBe("succeeded");
          else if (goneIds.has(id))
            expect(delivery).toMatchObject({ state: "failed", lastError: "webhook_deleted" });
          else expect(["pending", "delivering"]).toContain(delivery?.state);
        }
        // the in-flight claim of a cancelled delivery cannot complete it any more
        for (const row of claimed.slice(1)) {
          expect(await store.deliveries.complete(row.id, "w", { state: "succeeded", at: now })).toBe(false);
        }
        expect(await store.webhooks.delete(ws, gone.id)).toBe(false);
        // new events no longer create deliveries for it
        const [event] = await store.events.append(ws, emitter.id, events(1, now), { now });
        expect(event!.deliveryIds).toHaveLength(1);
      });
    });

    // ---- subscriptions ------------------------------------------------------------------------

    describe("subscriptions", () => {
      test("create is idempotent per emitter, listener and channel", async () => {
        const ws = await workspace();
        const emitter = await component(ws);
        const hook = await webhook(ws);
        const first = await store.subscriptions.create({
          workspaceId: ws,
          emitterId: emitter.id,
          listenerId: hook.id,
        });
        expect(first.id).toMatch(/^sub_/);
        expect(first.created).toBe(true);
        expect(first.eventName).toBeNull();
        const again = await store.subscriptions.create({
          workspaceId: ws,
          emitterId: emitter.id,
          listenerId: hook.id,
          eventName: null,
        });
        expect(again.created).toBe(false);
        expect(again.id).toBe(first.id);
        const explicit = await store.subscriptions.create({
          workspaceId: ws,
          emitterId: emitter.id,
          listenerId: hook.id,
          eventName: "default",
        });
        expect(explicit).toMatchObject({ id: first.id, created: false });
        const orders = await store.subscriptions.create({
          workspaceId: ws,
          emitterId: emitter.id,
          listenerId: hook.id,
          eventName: "orders",
        });
        expect(orders.created).toBe(true);
        expect(orders.id).not.toBe(first.id);
        expect(await store.subscriptions.list(ws)).toHaveLength(2);
      });

      test("list filters by emitter and listener", async () => {
        const ws = await workspace();
        const a = await component(ws);
        const b = await component(ws);
        const hook = await webhook(ws);
        const s1 = await store.subscriptions.create({
          workspaceId: ws,
          emitterId: a.id,
          listenerId: hook.id,
        });
        const s2 = await store.subscriptions.create({
          workspaceId: ws,
          emitterId: b.id,
          listenerId: hook.id,
        });
        const s3 = await store.subscriptions.create({ workspaceId: ws, emitterId: a.id, listenerId: b.id });
        expect((await store.subscriptions.list(ws)).map((s) => s.id)).toEqual([s1.id, s2.id, s3.id]);
        expect((await store.subscriptions.list(ws, { emitterId: a.id })).map((s) => s.id)).toEqual([
          s1.id,
          s3.id,
        ]);
        expect((await store.subscriptions.list(ws, { listenerId: hook.id })).map((s) => s.id)).toEqual([
          s1.id,
          s2.id,
        ]);
        expect(
          (await store.subscriptions.list(ws, { emitterId: a.id, listenerId: b.id })).map((s) => s.id),
        ).toEqual([s3.id]);
      });

      test("delete one channel or all channels", async () => {
        const ws = await workspace();
        const emitter = await component(ws);
        const hook = await webhook(ws);
        const base = { workspaceId: ws, emitterId: emitter.id, listenerId: hook.id };
        await store.subscriptions.create(base);
        await store.subscriptions.create({ ...base, eventName: "a" });
        await store.subscriptions.create({ ...base, eventName: "b" });
        const match = { emitterId: emitter.id, listenerId: hook.id };
        expect(await store.subscriptions.delete(ws, { ...match, eventName: "a" })).toBe(1);
        expect(await store.subscriptions.delete(ws, { ...match, eventName: "default" })).toBe(1);
        expect(await store.subscriptions.delete(ws, { ...match, eventName: "missing" })).toBe(0);
        expect(await store.subscriptions.delete(ws, match)).toBe(1);
        expect(await store.subscriptions.list(ws)).toEqual([]);
      });
    });

    // ---- timers -------------------------------------------------------------------------------

    describe("timers", () => {
      test("upsert, get and delete", async () => {
        const ws = await workspace();
        const id = unique("dc");
        const t = nextWindow();
        const timer = await store.timers.upsert({ componentId: id, workspaceId: ws, nextAt: t });
        expect(timer).toMatchObject({ componentId: id, workspaceId: ws, nextAt: t });
        expect(await store.timers.get(ws, id)).toMatchObject({ nextAt: t });
        await store.timers.upsert({ componentId: id, workspaceId: ws, nextAt: t + 5 });
        expect((await store.timers.get(ws, id))?.nextAt).toBe(t + 5);
        expect(await store.timers.delete(id)).toBe(true);
        expect(await store.timers.get(ws, id)).toBeUndefined();
        expect(await store.timers.delete(id)).toBe(false);
      });

      test("claimDue returns due timers once, leased", async () => {
        const ws = await workspace();
        const t = nextWindow();
        const due = unique("dc");
        const later = unique("dc");
        await store.timers.upsert({ componentId: due, workspaceId: ws, nextAt: t });
        await store.timers.upsert({ componentId: later, workspaceId: ws, nextAt: t + 10_000 });
        const mine = (timers: { componentId: string }[]) =>
          timers.map((timer) => timer.componentId).filter((id) => id === due || id === later);
        const first = await store.timers.claimDue(t + 1, "a", 1000, 100);
        expect(mine(first)).toEqual([due]);
        const claimed = first.find((timer) => timer.componentId === due)!;
        expect(claimed).toMatchObject({ nextAt: t, leaseOwner: "a", leaseExpiresAt: t + 1001 });
        expect(mine(await store.timers.claimDue(t + 2, "b", 1000, 100))).toEqual([]);
        // an expired lease can be claimed again
        expect(mine(await store.timers.claimDue(t + 1001, "b", 1000, 100))).toEqual([due]);
        // the first owner lost it
        expect(await store.timers.advance(due, "a", t, t + 60_000)).toBe(false);
        expect(await store.timers.advance(due, "b", t, t + 60_000)).toBe(true);
        expect(mine(await store.timers.claimDue(t + 2000, "c", 1000, 100))).toEqual([]);
      });

      test("advance is a compare-and-set on owner and fired time", async () => {
        const ws = await workspace();
        const t = nextWindow();
        const id = unique("dc");
        await store.timers.upsert({ componentId: id, workspaceId: ws, nextAt: t });
        const claimed = await store.timers.claimDue(t, "owner", 60_000, 1000);
        expect(claimed.map((timer) => timer.componentId)).toContain(id);
        expect(await store.timers.advance(id, "intruder", t, t + 100)).toBe(false);
        expect(await store.timers.advance(id, "owner", t - 1, t + 100)).toBe(false);
        expect(await store.timers.advance(id, "owner", t, t + 100)).toBe(true);
        expect(await store.timers.advance(id, "owner", t, t + 200)).toBe(false);
        expect((await store.timers.get(ws, id))?.nextAt).toBe(t + 100);
        // a reschedule (upsert) while claimed makes the claim stale
        const again = await store.timers.claimDue(t + 100, "owner", 60_000, 1000);
        expect(again.map((timer) => timer.componentId)).toContain(id);
        await store.timers.upsert({ componentId: id, workspaceId: ws, nextAt: t + 500 });
        expect(await store.timers.advance(id, "owner", t + 100, t + 300)).toBe(false);
        expect(await store.timers.advance("dc_missing", "owner", t, t)).toBe(false);
      });

      test("each tick is claimed by exactly one concurrent caller", async () => {
        const ws = await workspace();
        const t = nextWindow();
        const ids = new Set<string>();
        for (let i = 0; i < 30; i++) {
          const id = unique("dc");
          ids.add(id);
          await store.timers.upsert({ componentId: id, workspaceId: ws, nextAt: t + i });
        }
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.timers.claimDue(t + 100, `node-${i}`, 60_000, 100)),
        );
        const claimed = results.flat().filter((timer) => ids.has(timer.componentId));
        expect(claimed).toHaveLength(30);
        expect(new Set(claimed.map((timer) => timer.componentId)).size).toBe(30);
        const outcomes = await Promise.all(
          claimed.map((timer) =>
            store.timers.advance(timer.componentId, timer.leaseOwner!, timer.nextAt, t + 1e6),
          ),
        );
        expect(outcomes.every(Boolean)).toBe(true);
      });
    });

    // ---- deliveries ---------------------------------------------------------------------------

    describe("deliveries", () => {
      test("claim returns due rows oldest first, with event and webhook, leased", async () => {
        const now = nextWindow();
        const ws = await workspace();
        const emitter = await component(ws);
        const hook = await webhook(ws);
        await store.subscriptions.create({ workspaceId: ws, emitterId: emitter.id, listenerId: hook.id });
        const [late] = await store.events.append(ws, emitter.id, events(1, 0), { now: now + 20 });
        const [early] = await store.events.append(ws, emitter.id, events(1, 0), { now: now + 10 });
        const [future] = await store.events.append(ws, emitter.id, events(1, 0), { now: now + 1000 });
        const ours = new Set([late!, early!, future!].flatMap((event) => event.deliveryIds));
        const claimed = (
          await store.deliveries.claim({ owner: "worker", now: now + 30, leaseMs: 5000, limit: 100 })
        ).filter((row) => ours.has(row.id));
        expect(claimed.map((row) => row.eventId)).toEqual([early!.id, late!.id]);
        expect(claimed[0]).toMatchObject({
          state: "delivering",
          attempts: 1,
          leaseOwner: "worker",
          leaseExpiresAt: now + 5030,
          webhookId: hook.id,
        });
        expect(claimed[0]!.event).toMatchObject({ id: early!.id, body: { n: 0 } });
        expect(claimed[0]!.webhook).toMatchObject({ id: hook.id, url: hook.url });
        const stored = await store.deliveries.get(ws, claimed[0]!.id);
        expect(stored?.state).toBe("delivering");
        // limit is honoured
        const limited = await store.deliveries.claim({
          owner: "w",
          now: now + 2000,
          leaseMs: 5000,
          limit: 1,
        });
        expect(limited).toHaveLength(1);
      });

      test("concurrent claims never return a row twice", async () => {
        const now = nextWindow();
        const { deliveryIds } = await outbox(50, now, 2);
        expect(deliveryIds).toHaveLength(100);
        const ours = new Set(deliveryIds);
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) =>
            store.deliveries.claim({ owner: `worker-${i}`, now: now + 10, leaseMs: 60_000, limit: 15 }),
          ),
        );
        const rest = await drain(ours, () =>
          store.deliveries.claim({ owner: "late", now: now + 10, leaseMs: 60_000, limit: 50 }),
        );
        const claimed = [...results.flat().filter((row) => ours.has(row.id)), ...rest];
        expect(claimed).toHaveLength(100);
        expect(new Set(claimed.map((row) => row.id)).size).toBe(100);
      });

      test("complete: succeeded, failed, rescheduled, and lost leases", async () => {
        const now = nextWindow();
        const { ws, deliveryIds } = await outbox(4, now);
        const ours = new Set(deliveryIds);
        const claimed = await drain(ours, () =>
          store.deliveries.claim({ owner: "w", now, leaseMs: 60_000, limit: 100 }),
        );
        expect(claimed).toHaveLength(4);
        const [a, b, c, d] = claimed as [ClaimedDelivery, ClaimedDelivery, ClaimedDelivery, ClaimedDelivery];
        expect(await store.deliveries.complete(a.id, "other", { state: "succeeded", at: now })).toBe(false);
        expect(
          await store.deliveries.complete(a.id, "w", { state: "succeeded", status: 200, at: now + 1 }),
        ).toBe(true);
        expect(await store.deliveries.get(ws, a.id)).toMatchObject({ state: "succeeded", lastStatus: 200 });
        expect((await store.deliveries.get(ws, a.id))?.leaseOwner).toBeUndefined();
        expect(await store.deliveries.complete(a.id, "w", { state: "failed", at: now + 2 })).toBe(false);
        expect(
          await store.deliveries.complete(b.id, "w", {
            state: "failed",
            status: 500,
            error: "http_500",
            at: now,
          }),
        ).toBe(true);
        expect(await store.deliveries.get(ws, b.id)).toMatchObject({
          state: "failed",
          lastStatus: 500,
          lastError: "http_500",
        });
        expect(
          await store.deliveries.complete(c.id, "w", {
            state: "pending",
            nextAttemptAt: now + 5000,
            error: "timeout",
            at: now,
          }),
        ).toBe(true);
        expect(await store.deliveries.get(ws, c.id)).toMatchObject({
          state: "pending",
          nextAttemptAt: now + 5000,
          lastError: "timeout",
          attempts: 1,
        });
        const early = await store.deliveries.claim({
          owner: "w",
          now: now + 4999,
          leaseMs: 1000,
          limit: 100,
        });
        expect(early.map((row) => row.id)).not.toContain(c.id);
        const due = await drain(ours, () =>
          store.deliveries.claim({ owner: "w2", now: now + 5000, leaseMs: 1000, limit: 100 }),
        );
        expect(due.map((row) => row.id)).toEqual([c.id]);
        expect(due[0]!.attempts).toBe(2);
        expect(await store.deliveries.complete(d.id, "w", { state: "succeeded", at: now })).toBe(true);
      });

      test("expired leases are swept back to pending", async () => {
        const now = nextWindow();
        const { ws, deliveryIds } = await outbox(3, now);
        const ours = new Set(deliveryIds);
        const claimed = await drain(ours, () =>
          store.deliveries.claim({ owner: "crashed", now, leaseMs: 1000, limit: 100 }),
        );
        expect(claimed).toHaveLength(3);
        // not expired yet: nothing of ours is swept
        await store.deliveries.sweep(now + 999);
        expect((await store.deliveries.get(ws, claimed[0]!.id))?.state).toBe("delivering");
        const swept = await store.deliveries.sweep(now + 1000);
        expect(swept).toBeGreaterThanOrEqual(3);
        for (const row of claimed) {
          const stored = await store.deliveries.get(ws, row.id);
          expect(stored?.state).toBe("pending");
          expect(stored?.leaseOwner).toBeUndefined();
        }
        expect(
          await store.deliveries.complete(claimed[0]!.id, "crashed", { state: "succeeded", at: now }),
        ).toBe(false);
        const again = await drain(ours, () =>
          store.deliveries.claim({ owner: "healthy", now: now + 1000, leaseMs: 1000, limit: 100 }),
        );
        expect(again).toHaveLength(3);
        expect(again.every((row) => row.leaseOwner === "healthy" && row.attempts === 2)).toBe(true);
        expect(await store.deliveries.sweep(now + 1001)).toBe(0);
      });

      test("perWebhookLimit bounds the rows of one webhook in flight", async () => {
        const now = nextWindow();
        const { deliveryIds, webhooks } = await outbox(10, now, 2);
        const ours = new Set(deliveryIds);
        const [a, b] = webhooks as [Webhook, Webhook];
        const claim = (owner: string, at = now) =>
          store.deliveries.claim({ owner, now: at, leaseMs: 60_000, limit: 100, perWebhookLimit: 3 });
        const count = (rows: ClaimedDelivery[], hook: Webhook) =>
          rows.filter((row) => ours.has(row.id) && row.webhookId === hook.id).length;
        const first = await claim("w1");
        expect(count(first, a)).toBe(3);
        expect(count(first, b)).toBe(3);
        const second = await claim("w2");
        expect(count(second, a) + count(second, b)).toBe(0);
        const done = first.find((row) => row.webhookId === a.id)!;
        expect(await store.deliveries.complete(done.id, "w1", { state: "succeeded", at: now })).toBe(true);
        const third = await claim("w3");
        expect(count(third, a)).toBe(1);
        expect(count(third, b)).toBe(0);
        // concurrent claimers together respect the limit too
        const rows = (await Promise.all([claim("x"), claim("y"), claim("z")])).flat();
        expect(count(rows, a) + count(rows, b)).toBe(0);
        // expired leases do not count
        const afterExpiry = await claim("w4", now + 60_000);
        expect(count(afterExpiry, a)).toBe(3);
      });

      test("recordAttempt and listAttempts", async () => {
        const now = nextWindow();
        const { ws, deliveryIds } = await outbox(1, now);
        const other = await workspace();
        const id = deliveryIds[0]!;
        const first = await store.deliveries.recordAttempt({
          deliveryId: id,
          workspaceId: ws,
          at: now,
          status: 500,
          durationMs: 12,
          responseExcerpt: "oops",
        });
        expect(first.id).toMatch(/^att_/);
        const second = await store.deliveries.recordAttempt({
          deliveryId: id,
          workspaceId: ws,
          at: now + 5000,
          durationMs: 15000,
          error: "timeout",
        });
        const listed = await store.deliveries.listAttempts(ws, id);
        expect(listed).toEqual([first, second]);
        expect(listed[0]).toMatchObject({ status: 500, durationMs: 12, responseExcerpt: "oops", at: now });
        expect(await store.deliveries.listAttempts(other, id)).toEqual([]);
      });

      test("get and list with filters and paging", async () => {
        const now = nextWindow();
        const { ws, deliveryIds, webhooks } = await outbox(12, now, 2);
        const [a] = webhooks as [Webhook, Webhook];
        expect(await store.deliveries.get(ws, "dlv_missing")).toBeUndefined();
        const all = await store.deliveries.list(ws, { limit: 100 });
        expect(all.items).toHaveLength(24);
        expect(all.items.map((d) => d.id)).toEqual([...deliveryIds].sort().reverse());
        expect((await store.deliveries.list(ws)).items.length).toBeGreaterThan(0);
        const forA = await store.deliveries.list(ws, { webhookId: a.id, limit: 100 });
        expect(forA.items).toHaveLength(12);
        expect(forA.items.every((d) => d.webhookId === a.id)).toBe(true);
        const seen: string[] = [];
        let cursor: string | undefined;
        for (let i = 0; i < 10; i++) {
          const page = await store.deliveries.list(ws, { limit: 10, ...(cursor ? { before: cursor } : {}) });
          seen.push(...page.items.map((d) => d.id));
          cursor = page.nextCursor;
          if (!cursor) break;
        }
        expect(seen).toEqual(all.items.map((d) => d.id));
        const claimed = await drain(new Set(deliveryIds), () =>
          store.deliveries.claim({ owner: "w", now, leaseMs: 60_000, limit: 5 }),
        );
        expect(await store.deliveries.complete(claimed[0]!.id, "w", { state: "failed", at: now })).toBe(true);
        const failed = await store.deliveries.list(ws, { state: "failed" });
        expect(failed.items.map((d) => d.id)).toEqual([claimed[0]!.id]);
        const byEvent = await store.deliveries.list(ws, { eventId: claimed[0]!.eventId });
        expect(byEvent.items).toHaveLength(2);
      });

      test("retry makes a finished delivery pending now", async () => {
        const now = nextWindow();
        const { ws, deliveryIds } = await outbox(2, now);
        const ours = new Set(deliveryIds);
        const other = await workspace();
        const [x, y] = (await drain(ours, () =>
          store.deliveries.claim({ owner: "w", now, leaseMs: 60_000, limit: 100 }),
        )) as [ClaimedDelivery, ClaimedDelivery];
        expect(await store.deliveries.retry(ws, x.id, now + 1)).toBe(false); // in flight
        await store.deliveries.complete(x.id, "w", { state: "failed", error: "http_500", at: now });
        await store.deliveries.complete(y.id, "w", { state: "succeeded", at: now });
        expect(await store.deliveries.retry(other, x.id, now + 10)).toBe(false);
        expect((await store.deliveries.get(ws, x.id))?.state).toBe("failed");
        expect(await store.deliveries.retry(ws, x.id, now + 10)).toBe(true);
        expect(await store.deliveries.retry(ws, y.id, now + 10)).toBe(true);
        expect(await store.deliveries.get(ws, x.id)).toMatchObject({
          state: "pending",
          nextAttemptAt: now + 10,
        });
        const again = await drain(ours, () =>
          store.deliveries.claim({ owner: "w", now: now + 10, leaseMs: 60_000, limit: 100 }),
        );
        expect(again.map((row) => row.id).sort()).toEqual([x.id, y.id].sort());
        expect(await store.deliveries.retry(ws, "dlv_missing", now)).toBe(false);
      });

      test("recover makes the failed deliveries of a window pending", async () => {
        const t = nextWindow();
        const ws = await workspace();
        const other = await workspace();
        const emitter = await component(ws);
        const hook = await webhook(ws);
        const otherHook = await webhook(ws);
        await store.subscriptions.create({ workspaceId: ws, emitterId: emitter.id, listenerId: hook.id });
        await store.subscriptions.create({
          workspaceId: ws,
          emitterId: emitter.id,
          listenerId: otherHook.id,
        });
        const ids: string[] = [];
        for (const at of [t, t + 100, t + 200, t + 300]) {
          const [event] = await store.events.append(ws, emitter.id, events(1, at), { now: at });
          ids.push(...event!.deliveryIds);
        }
        const ours = new Set(ids);
        const claimed = await drain(ours, () =>
          store.deliveries.claim({ owner: "w", now: t + 300, leaseMs: 60_000, limit: 100 }),
        );
        expect(claimed).toHaveLength(8);
        for (const row of claimed) {
          const state = row.createdAt === t + 200 && row.webhookId === hook.id ? "succeeded" : "failed";
          await store.deliveries.complete(row.id, "w", { state, at: t + 300 });
        }
        expect(await store.deliveries.recover(other, hook.id, { since: t }, t + 400)).toBe(0);
        // [t + 100, t + 300): the t + 100 one is failed, the t + 200 one succeeded
        expect(await store.deliveries.recover(ws, hook.id, { since: t + 100, until: t + 300 }, t + 400)).toBe(
          1,
        );
        expect(await store.deliveries.recover(ws, hook.id, { since: t }, t + 400)).toBe(2);
        const pending = await store.deliveries.list(ws, { state: "pending", limit: 100 });
        expect(pending.items).toHaveLength(3);
        expect(pending.items.every((d) => d.webhookId === hook.id && d.nextAttemptAt === t + 400)).toBe(true);
        expect(
          (await store.deliveries.list(ws, { webhookId: otherHook.id, state: "failed" })).items,
        ).toHaveLength(4);
      });
    });

    // ---- cross-cutting ------------------------------------------------------------------------

    describe("notifications", () => {
      /** Runs only when the store has notifications (they are optional). */
      const withNotices = (title: string, fn: (notices: StoreNotice[]) => Promise<void>): void => {
        const run = async (ctx: { skip: () => void }): Promise<void> => {
          const notifications = store.notifications;
          if (!notifications) {
            ctx.skip();
            return;
          }
          const notices: StoreNotice[] = [];
          const unsubscribe = notifications.subscribe((notice) => notices.push(notice));
          try {
            await fn(notices);
          } finally {
            unsubscribe();
          }
        };
        if (options.skip?.includes(title)) it.skip(title, run);
        else it(title, run, options.timeout);
      };

      /** Waits (up to 5 s) until `predicate` holds: notices may arrive after the write resolves. */
      const eventually = async (predicate: () => boolean): Promise<void> => {
        const deadline = Date.now() + 5_000;
        while (!predicate()) {
          if (Date.now() > deadline) throw new Error("the expected notice did not arrive");
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      const due = (notices: StoreNotice[]) => notices.filter((n) => n.kind === "deliveries").length;
      const seqsOf = (notices: StoreNotice[], emitterId: string): number[] =>
        notices.flatMap((n) => (n.kind === "events" && n.emitterId === emitterId ? n.seqs : []));

      // A subscriber may be connected only some time after subscribe() returns: settle it first.
      const settle = async (notices: StoreNotice[]): Promise<void> => {
        const ws = await workspace("settle");
        const probe = await component(ws);
        for (let i = 0; i < 50 && seqsOf(notices, probe.id).length === 0; i++) {
          await store.events.append(ws, probe.id, events(1, 1));
          for (let wait = 0; wait < 10 && seqsOf(notices, probe.id).length === 0; wait++) {
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        }
        await eventually(() => seqsOf(notices, probe.id).length > 0);
        notices.length = 0;
      };

      withNotices("the outbox announces its events and, with them, due deliveries", async (notices) => {
        await settle(notices);
        const now = nextWindow();
        const { ws, emitter, appended } = await outbox(3, now, 2);
        await eventually(() => seqsOf(notices, emitter.id).length === 3 && due(notices) > 0);
        expect(seqsOf(notices, emitter.id)).toEqual(appended.map((e) => e.seq));
        const notice = notices.find((n) => n.kind === "events" && n.emitterId === emitter.id);
        expect(notice).toMatchObject({ kind: "events", local: true, workspaceId: ws, emitterId: emitter.id });
        expect(notices.find((n) => n.kind === "deliveries")).toEqual({ kind: "deliveries", local: true });

        // Events without subscribers: announced, but no deliveries became due.
        notices.length = 0;
        const quiet = await component(ws);
        const [event] = await store.events.append(ws, quiet.id, events(1, now));
        await eventually(() => seqsOf(notices, quiet.id).length === 1);
        expect(seqsOf(notices, quiet.id)).toEqual([event!.seq]);
        expect(due(notices)).toBe(0);
      });

      withNotices("log appends are announced with their seqs", async (notices) => {
        await settle(notices);
        const ws = await workspace();
        const dc = await component(ws);
        const lines = await store.logs.append(ws, dc.id, [
          { level: "info", message: "one", ts: 1 },
          { level: "warn", message: "two", ts: 2 },
        ]);
        const logSeqs = () =>
          notices.flatMap((n) => (n.kind === "logs" && n.componentId === dc.id ? n.seqs : []));
        await eventually(() => logSeqs().length >= 2);
        expect(logSeqs()).toEqual(lines.map((line) => line.seq));
        expect(notices.find((n) => n.kind === "logs")).toMatchObject({
          local: true,
          workspaceId: ws,
          componentId: dc.id,
        });
      });

      withNotices(
        "retry, recover, a release due now and a sweep announce due deliveries",
        async (notices) => {
          await settle(notices);
          const now = nextWindow();
          const { ws, webhooks, deliveryIds } = await outbox(3, now);
          const [a, b, c] = deliveryIds as [string, string, string];
          const ours = new Set(deliveryIds);
          const rows = await drain(ours, () =>
            store.deliveries.claim({ owner: "n", now, leaseMs: 1000, limit: 100 }),
          );
          expect(rows).toHaveLength(3);
          await eventually(() => due(notices) > 0); // the outbox's own notice
          notices.length = 0;

          expect(await store.deliveries.complete(a, "n", { state: "failed", at: now })).toBe(true);
          expect(await store.deliveries.retry(ws, a, now)).toBe(true);
          await eventually(() => due(notices) > 0);

          notices.length = 0;
          expect(
            await store.deliveries.complete(b, "n", { state: "pending", nextAttemptAt: now, at: now }),
          ).toBe(true);
          await eventually(() => due(notices) > 0);

          notices.length = 0;
          expect(await store.deliveries.sweep(now + 1000)).toBeGreaterThanOrEqual(1); // c's lease expired
          await eventually(() => due(notices) > 0);

          notices.length = 0;
          const again = await drain(ours, () =>
            store.deliveries.claim({ owner: "m", now: now + 1000, leaseMs: 1000, limit: 100 }),
          );
          expect(again.map((row) => row.id).sort()).toEqual([a, b, c].sort());
          for (const row of again) {
            await store.deliveries.complete(row.id, "m", { state: "failed", at: now + 1000 });
          }
          expect(await store.deliveries.recover(ws, webhooks[0]!.id, { since: now }, now + 2000)).toBe(3);
          await eventually(() => due(notices) > 0);
          expect(notices.every((n) => n.local)).toBe(true);
        },
      );

      withNotices("an unsubscribed listener gets nothing more", async (notices) => {
        await settle(notices);
        const late: StoreNotice[] = [];
        const unsubscribe = store.notifications!.subscribe((notice) => late.push(notice));
        unsubscribe();
        unsubscribe(); // twice is harmless
        const ws = await workspace();
        const dc = await component(ws);
        await store.events.append(ws, dc.id, events(1, 1));
        await eventually(() => seqsOf(notices, dc.id).length === 1); // the other subscriber got it
        expect(late).toEqual([]);
      });
    });

    describe("isolation", () => {
      test("another workspace sees nothing and changes nothing", async () => {
        const now = nextWindow();
        const { ws, emitter, webhooks, appended, deliveryIds } = await outbox(2, now);
        const hook = webhooks[0]!;
        const intruder = await workspace("intruder");
        const key = await store.apiKeys.create({ workspaceId: ws, name: "k", hash: unique("h"), hint: "h" });
        const account = await store.accounts.create({
          workspaceId: ws,
          app: "github",
          name: "a",
          credentials: "c",
        });
        const saved = await store.savedComponents.create({
          workspaceId: ws,
          code: "c",
          codeHash: "h",
          filename: "f.mjs",
          bundle: "b",
          description: {},
          key: unique("key"),
          version: "1.0.0",
        });
        await store.logs.append(ws, emitter.id, [{ level: "info", message: "secret", ts: 1 }]);
        await store.timers.upsert({ componentId: emitter.id, workspaceId: ws, nextAt: now + 1e8 });
        const attempt = await store.deliveries.recordAttempt({
          deliveryId: deliveryIds[0]!,
          workspaceId: ws,
          at: now,
          durationMs: 1,
        });

        // reads
        expect(await store.apiKeys.list(intruder)).toEqual([]);
        expect(await store.accounts.get(intruder, account.id)).toBeUndefined();
        expect(await store.accounts.list(intruder)).toEqual([]);
        expect(await store.savedComponents.get(intruder, saved.id)).toBeUndefined();
        expect(await store.savedComponents.list(intruder)).toEqual([]);
        expect(await store.savedComponents.findByKey(intruder, saved.key!)).toBeUndefined();
        expect(await store.deployedComponents.get(intruder, emitter.id)).toBeUndefined();
        expect(await store.deployedComponents.getBySlug(intruder, emitter.slug)).toBeUndefined();
        expect(await store.deployedComponents.list(intruder)).toEqual([]);
        expect((await store.events.list(intruder, emitter.id)).items).toEqual([]);
        expect(await store.events.get(intruder, appended[0]!.id)).toBeUndefined();
        expect((await store.logs.list(intruder, emitter.id)).items).toEqual([]);
        expect(await store.webhooks.get(intruder, hook.id)).toBeUndefined();
        expect(await store.webhooks.list(intruder)).toEqual([]);
        expect(await store.subscriptions.list(intruder)).toEqual([]);
        expect(await store.subscriptions.list(intruder, { emitterId: emitter.id })).toEqual([]);
        expect(await store.timers.get(intruder, emitter.id)).toBeUndefined();
        expect(await store.deliveries.get(intruder, deliveryIds[0]!)).toBeUndefined();
        expect((await store.deliveries.list(intruder)).items).toEqual([]);
        expect(await store.deliveries.listAttempts(intruder, deliveryIds[0]!)).toEqual([]);

        // writes
        expect(await store.apiKeys.revoke(intruder, key.id)).toBe(false);
        expect(await store.accounts.update(intruder, account.id, { name: "x" })).toBeUndefined();
        expect(await store.accounts.delete(intruder, account.id)).toBe(false);
        expect(await store.deployedComponents.update(intruder, emitter.id, { name: "x" })).toBeUndefined();
        expect(await store.deployedComponents.delete(intruder, emitter.id)).toBe(false);
        expect(await store.events.delete(intruder, emitter.id)).toBe(0);
        expect(await store.events.delete(intruder, emitter.id, [appended[0]!.id])).toBe(0);
        expect(await store.webhooks.update(intruder, hook.id, { active: false })).toBeUndefined();
        expect(await store.webhooks.delete(intruder, hook.id)).toBe(false);
        expect(
          await store.subscriptions.delete(intruder, { emitterId: emitter.id, listenerId: hook.id }),
        ).toBe(0);
        expect(await store.deliveries.retry(intruder, deliveryIds[0]!, now)).toBe(false);
        expect(await store.deliveries.recover(intruder, hook.id, { since: 0 }, now)).toBe(0);

        // nothing changed
        expect(await store.apiKeys.findByHash(key.hash)).toEqual(key);
        expect(await store.accounts.get(ws, account.id)).toEqual(account);
        expect(await store.deployedComponents.get(ws, emitter.id)).toEqual(emitter);
        expect((await store.events.list(ws, emitter.id)).items).toHaveLength(2);
        expect(await store.webhooks.get(ws, hook.id)).toEqual(hook);
        expect(await store.subscriptions.list(ws, { emitterId: emitter.id })).toHaveLength(1);
        expect((await store.logs.list(ws, emitter.id)).items).toHaveLength(1);
        expect(await store.timers.get(ws, emitter.id)).toBeDefined();
        expect(await store.deliveries.get(ws, deliveryIds[0]!)).toMatchObject({ state: "pending" });
        expect(await store.deliveries.listAttempts(ws, deliveryIds[0]!)).toEqual([attempt]);
      });

      test("returned rows are copies", async () => {
        const ws = await workspace();
        const dc = await component(ws);
        dc.props.greeting = "mutated";
        dc.name = "mutated";
        const read = await store.deployedComponents.get(ws, dc.id);
        expect(read?.props).toEqual({ greeting: "hi" });
        expect(read?.name).toBe("Test component");
        read!.props.greeting = "again";
        expect((await store.deployedComponents.get(ws, dc.id))?.props).toEqual({ greeting: "hi" });
        const [event] = await store.events.append(ws, dc.id, [
          { channel: "default", ts: 1, body: { a: [1] } },
        ]);
        (event!.body as { a: number[] }).a.push(2);
        expect((await store.events.getById(event!.id))?.body).toEqual({ a: [1] });
      });
    });
  });
}
