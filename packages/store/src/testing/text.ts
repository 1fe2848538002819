/**
 * Conformance: text is stored losslessly. NUL characters and lone surrogates (which Postgres `text`
 * and `jsonb` cannot hold as they are), and strings that start with U+FFFF (the SQL store's escape
 * mark), come back exactly as given, in every field, and equality lookups still find them.
 */
import { describe, expect } from "vitest";
import { DESCRIPTION, nextWindow, type SuiteContext, unique } from "./context.js";

/** A unique string holding the mark, NUL, a lone high and a lone low surrogate, and a pair. */
const weird = (label: string): string => `\uffff${unique(label)}\u0000\ud800-\udc01|\ud83d\ude00\\u0000`;

/** A JSON value with weird strings as values and keys, in an order that must survive. */
const weirdJson = (label: string) => ({
  z: weird(label),
  a: [weird(label), "\u0000", "\ud800"],
  [weird("key")]: { "\u0000": "\udfff" },
});

/** Registers the lossless text tests. */
export function textSuite(t: SuiteContext): void {
  describe("text (NUL, lone surrogates)", () => {
    t.test("workspaces, API keys, accounts and settings", async () => {
      const { store } = t;
      const ws = await store.workspaces.create({ id: weird("ws"), name: weird("name") });
      expect(await store.workspaces.get(ws.id)).toEqual(ws);
      const key = await store.apiKeys.create({
        workspaceId: ws.id,
        name: weird("k"),
        hash: weird("h"),
        hint: weird("i"),
      });
      expect(await store.apiKeys.findByHash(key.hash)).toEqual(key);
      expect(await store.apiKeys.list(ws.id)).toEqual([key]);
      const account = await store.accounts.create({
        workspaceId: ws.id,
        app: weird("app"),
        name: weird("n"),
        credentials: weird("c"),
      });
      expect(await store.accounts.list(ws.id, { app: account.app })).toEqual([account]);
      const renamed = await store.accounts.update(ws.id, account.id, { name: weird("n2") });
      expect(await store.accounts.get(ws.id, account.id)).toEqual(renamed);
      const setting = weird("setting");
      expect(await store.settings.setIfAbsent(setting, weird("value"))).toBe(
        await store.settings.get(setting),
      );
      expect((await store.settings.get(setting))?.startsWith("\uffffvalue")).toBe(true);
    });

    t.test("saved and deployed components, kv", async () => {
      const { store } = t;
      const ws = await t.workspace();
      const extra = weirdJson("x");
      const description = {
        ...DESCRIPTION,
        name: weird("d"),
        props: { p: { type: "string", label: weird("l"), extra } },
      };
      const sc = await store.savedComponents.create({
        workspaceId: ws,
        code: weird("code"),
        codeHash: weird("hash"),
        filename: weird("file"),
        bundle: weird("bundle"),
        description,
        key: weird("key"),
        version: "1.0.0",
      });
      expect(await store.savedComponents.get(ws, sc.id)).toEqual(sc);
      const read = (await store.savedComponents.get(ws, sc.id))!.description.props.p!;
      expect(Object.keys(read.extra as object)).toEqual(Object.keys(extra));
      expect((await store.savedComponents.findByKey(ws, sc.key!))?.id).toBe(sc.id);
      const dc = await store.deployedComponents.create({
        id: weird("dc"),
        workspaceId: ws,
        savedComponentId: sc.id,
        name: weird("name"),
        slug: weird("slug"),
        props: weirdJson("props"),
        active: true,
        endpointId: weird("en"),
        meta: weirdJson("meta"),
      });
      expect(await store.deployedComponents.get(ws, dc.id)).toEqual(dc);
      expect(await store.deployedComponents.getBySlug(ws, dc.slug)).toEqual(dc);
      expect(await store.deployedComponents.getByEndpoint(dc.endpointId!)).toEqual(dc);
      const updated = await store.deployedComponents.update(ws, dc.id, {
        name: weird("n2"),
        props: weirdJson("p2"),
      });
      expect(await store.deployedComponents.get(ws, dc.id)).toEqual(updated);
      const key = weird("k");
      const value = weirdJson("v");
      await store.kv.set(dc.id, key, value);
      expect(await store.kv.get(dc.id, key)).toEqual(value);
      expect(await store.kv.list(dc.id)).toEqual([{ key, value }]);
      expect(Object.keys((await store.kv.get(dc.id, key)) as object)).toEqual(Object.keys(value));
    });

    t.test("events, dedupe state, subscriptions, deliveries and attempts", async () => {
      const { store } = t;
      const now = nextWindow();
      const ws = await t.workspace();
      const emitter = await t.component(ws);
      const channel = weird("channel");
      const hook = await store.webhooks.create({
        workspaceId: ws,
        url: weird("https://example.com/"),
        name: weird("hook"),
        description: weird("desc"),
        active: true,
        secrets: [{ value: weird("secret"), createdAt: 1 }],
      });
      expect(await store.webhooks.get(ws, hook.id)).toEqual(hook);
      const sub = await store.subscriptions.create({
        workspaceId: ws,
        emitterId: emitter.id,
        listenerId: hook.id,
        eventName: channel,
      });
      const { created: _created, ...subscription } = sub;
      expect(await store.subscriptions.list(ws, { emitterId: emitter.id })).toEqual([subscription]);
      const body = weirdJson("body");
      const ids = [weird("id"), weird("other id")] as const;
      const [event, other] = await store.emits.commit({
        workspaceId: ws,
        componentId: emitter.id,
        dedupe: "unique",
        events: [
          { channel, summary: weird("summary"), eventId: ids[0], ts: now, body },
          { channel: "default", ts: now, eventId: ids[1], body: "\u0000" },
        ],
        now,
      });
      expect(event).toMatchObject({ channel, body });
      expect(event!.deliveryIds).toHaveLength(1); // the channel matched the subscription
      expect(other!.deliveryIds).toHaveLength(0);
      expect(await store.dedupe.get(emitter.id)).toEqual({ ids: [...ids] });
      const { deliveryIds: _ids, ...stored } = event!;
      expect(await store.events.get(ws, event!.id)).toEqual(stored);
      expect(Object.keys((await store.events.get(ws, event!.id))!.body as object)).toEqual(Object.keys(body));
      expect((await store.events.list(ws, emitter.id, { channel })).items).toEqual([stored]);
      expect((await store.events.getById(other!.id))?.body).toBe("\u0000");

      const owner = weird("owner");
      const [claimed] = await t.drain(new Set(event!.deliveryIds), { owner, now });
      expect(claimed).toMatchObject({ channel, leaseOwner: owner, event: stored, webhook: hook });
      const attempt = await store.queue.deliveries.recordAttempt({
        deliveryId: claimed!.id,
        workspaceId: ws,
        at: now,
        durationMs: 1,
        responseExcerpt: weird("excerpt"),
        error: weird("error"),
      });
      expect(await store.deliveries.listAttempts(ws, claimed!.id)).toEqual([attempt]);
      const error = weird("last");
      expect(
        await store.queue.deliveries.complete(claimed!.id, owner, { state: "failed", error, at: now }),
      ).toBe(true);
      expect((await store.deliveries.get(ws, claimed!.id))?.lastError).toBe(error);
      const disabled = await store.webhooks.update(ws, hook.id, { disabledReason: weird("why"), name: null });
      expect(await store.webhooks.list(ws)).toEqual([disabled]);
      expect(
        await store.subscriptions.delete(ws, {
          emitterId: emitter.id,
          listenerId: hook.id,
          eventName: channel,
        }),
      ).toBe(1);
    });

    t.test("logs and timers", async () => {
      const { store } = t;
      const ws = await t.workspace();
      const componentId = weird("dc");
      const lines = [
        { level: weird("level"), message: weird("message"), ts: 1 },
        { level: "info", message: "\u0000", ts: 2 },
        { level: "info", message: "\udc00", ts: 3 },
      ];
      const stored = await store.logs.append(ws, componentId, lines);
      expect(stored.map(({ level, message, ts }) => ({ level, message, ts }))).toEqual(lines);
      expect((await store.logs.list(ws, componentId)).items).toEqual(stored);
      const at = nextWindow();
      await store.timers.upsert({ componentId, workspaceId: ws, nextAt: at });
      expect(await store.timers.get(ws, componentId)).toMatchObject({ componentId, nextAt: at });
      const owner = weird("node");
      const claimed = await store.queue.timers.claim({ now: at, owner, leaseMs: 1000, limit: 1000 });
      expect(claimed.find((timer) => timer.componentId === componentId)).toMatchObject({ leaseOwner: owner });
      expect(await store.queue.timers.advance(componentId, owner, at, at + 1)).toBe(true);
      expect(await store.timers.delete(componentId)).toBe(true);
    });
  });
}
