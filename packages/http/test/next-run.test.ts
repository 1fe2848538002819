// `next_run_at` on sources and workflows: an active timer's next tick from the store's schedule
// (set at deploy, moved by each tick, gone when deactivated), null for everything else; on memory
// and PGlite.
import { createFakeClock } from "@hookline/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, startApi } from "./_harness.js";
import { type OpenedStore, WORKFLOW_STORES } from "./_workflow-stores.js";

const START = Date.UTC(2026, 0, 31, 10, 20, 30);
const sec = (ms: number) => Math.floor(ms / 1000);

const TIMER_SOURCE = `export default defineComponent({
  name: "Ticker", version: "0.0.1",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 300 } } },
  async run() { this.$emit({ tick: true }) },
})`;
const HTTP_SOURCE = `export default defineComponent({
  name: "Hook", version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event) },
})`;

for (const { name: storeName, open } of WORKFLOW_STORES)
  describe(`next_run_at on the ${storeName} store`, () => {
    const clock = createFakeClock(START);
    let api: Api;
    let opened: OpenedStore;
    beforeAll(async () => {
      opened = await open();
      api = await startApi("fetch", { engine: { clock, store: opened.store } });
    }, 60_000);
    afterAll(async () => {
      await api.close();
      await opened.close();
    });

    async function deploy(code: string, props: Record<string, unknown> = {}) {
      const res = await api.call("POST", "/v1/sources", {
        body: { component_code: code, name: `s${Math.random()}`, configured_props: props },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.data as { id: string; next_run_at: number | null };
    }

    it("a timer source: the next tick, moved by each tick; null once inactive; null without a timer", async () => {
      const src = await deploy(TIMER_SOURCE, { timer: { intervalSeconds: 300 } });
      expect(src.next_run_at).toBe(sec(START + 300_000));
      const http = await deploy(HTTP_SOURCE);
      expect(http.next_run_at).toBeNull();

      clock.advance(301_000);
      expect(await api.hookline.timers.tick()).toBeGreaterThanOrEqual(1);
      const got = await api.call("GET", `/v1/sources/${src.id}`);
      expect(got.body.data.next_run_at).toBe(sec(START + 600_000));
      const list = await api.call("GET", "/v1/sources");
      const inList = (list.body.data as { id: string; next_run_at: number | null }[]).find(
        (s) => s.id === src.id,
      );
      expect(inList?.next_run_at).toBe(sec(START + 600_000));

      const off = await api.call("PUT", `/v1/sources/${src.id}`, { body: { active: false } });
      expect(off.body.data.next_run_at).toBeNull();
      const on = await api.call("PUT", `/v1/sources/${src.id}`, { body: { active: true } });
      expect(on.body.data.next_run_at).toBe(sec(clock.now() + 300_000));
    });

    it("a cron source: the next matching minute in its time zone", async () => {
      const src = await deploy(TIMER_SOURCE, { timer: { cron: "0 9 * * *", timezone: "Europe/Paris" } });
      // 09:00 in Paris (UTC+1 in winter) is 08:00 UTC, within the coming day.
      const next = new Date(src.next_run_at! * 1000);
      expect(next.getUTCHours()).toBe(8);
      expect(next.getUTCMinutes()).toBe(0);
      expect(src.next_run_at! * 1000).toBeGreaterThan(clock.now());
      expect(src.next_run_at! * 1000 - clock.now()).toBeLessThanOrEqual(86_400_000);
    });

    it("a timer workflow: next_run_at in the list and on the workflow; null for other triggers", async () => {
      const step = [
        { name: "a", component_code: "export default defineComponent({ async run() { return 1 } })" },
      ];
      const timer = await api.call("POST", "/v1/workflows", {
        body: { name: "every minute", trigger: { type: "timer", intervalSeconds: 60 }, steps: step },
      });
      expect(timer.status, JSON.stringify(timer.body)).toBe(200);
      expect(timer.body.data.next_run_at).toBe(sec(clock.now() + 60_000));
      const manual = await api.call("POST", "/v1/workflows", {
        body: { name: "by hand", trigger: { type: "manual" }, steps: step },
      });
      expect(manual.body.data.next_run_at).toBeNull();
      const list = await api.call("GET", "/v1/workflows");
      const byId = new Map(
        (list.body.data as { id: string; next_run_at: number | null }[]).map((w) => [w.id, w]),
      );
      expect(byId.get(timer.body.data.id)?.next_run_at).toBe(sec(clock.now() + 60_000));
      expect(byId.get(manual.body.data.id)?.next_run_at).toBeNull();
      const off = await api.call("PUT", `/v1/workflows/${timer.body.data.id}`, { body: { active: false } });
      expect(off.body.data.next_run_at).toBeNull();
    });
  });
