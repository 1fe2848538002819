import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, eventually, HTTP_SOURCE, MODES, startApi } from "./_harness.js";
import { readSse } from "./_sse-reader.js";

/** Opens an SSE stream and parses it with eventsource-parser (no hand parsing). */
async function openStream(api: Api, path: string, lastEventId?: string) {
  const controller = new AbortController();
  const res = await api.raw(path, {
    headers: { authorization: `Bearer ${api.key}`, ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
    signal: controller.signal,
  });
  return { res, ...readSse(res, controller) };
}

describe.each(MODES)("SSE through %s", (mode) => {
  let api: Api;
  let sourceId: string;
  let endpoint: string;
  beforeAll(async () => {
    api = await startApi(mode, { handler: { heartbeatMs: 50 } });
    const source = await api.call("POST", "/v1/sources", { body: { component_code: HTTP_SOURCE } });
    sourceId = source.body.data.id;
    endpoint = new URL(source.body.data.endpoint_url).pathname;
  });
  afterAll(() => api.close());

  const emit = (n: number) =>
    api.raw(endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ n }),
    });

  it("streams emits with ids, heartbeats, and resumes with Last-Event-ID without loss or repeats", async () => {
    const first = await openStream(api, `/v1/sources/${sourceId}/sse`);
    expect(first.res.status).toBe(200);
    expect(first.res.headers.get("content-type")).toContain("text/event-stream");
    await emit(1);
    await emit(2);
    await eventually(() => expect(first.messages).toHaveLength(2));
    expect(first.messages.map((m) => JSON.parse(m.data).event)).toEqual([{ n: 1 }, { n: 2 }]);
    expect(first.messages.every((m) => m.event === "emit" && /^\d+$/.test(m.id ?? ""))).toBe(true);
    await eventually(() => expect(first.comments.map((c) => c.trim())).toContain("heartbeat"));
    const lastSeen = first.messages.at(-1)?.id as string;
    await first.close();

    // Emitted while disconnected.
    await emit(3);
    await emit(4);
    const resumed = await openStream(api, `/v1/sources/${sourceId}/sse`, lastSeen);
    await emit(5);
    await eventually(() => expect(resumed.messages).toHaveLength(3));
    expect(resumed.messages.map((m) => JSON.parse(m.data).event)).toEqual([{ n: 3 }, { n: 4 }, { n: 5 }]);
    const ids = resumed.messages.map((m) => Number(m.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(ids[0]).toBeGreaterThan(Number(lastSeen));
    await resumed.close();
  });

  it("sends an event that arrives out of seq order (another node committed it later) once, without repeats on resume", async () => {
    const source = await api.call("POST", "/v1/sources", { body: { component_code: HTTP_SOURCE } });
    const id = source.body.data.id as string;
    const path = new URL(source.body.data.endpoint_url).pathname;
    const hit = (n: number) =>
      api.raw(path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ n }),
      });
    await hit(1); // stored before the stream opens: plays the event another node has not committed yet
    const stream = await openStream(api, `/v1/sources/${id}/sse`);
    await hit(2);
    await eventually(() => expect(stream.messages).toHaveLength(1));
    const [late] = (await api.hookline.sources.events(api.workspaceId, id, { limit: 10 })).items.filter(
      (e) => (e.body as { n?: number }).n === 1,
    );
    if (!late) throw new Error("event 1 not stored");
    // The fan-out announces the lower seq after the higher one, twice (a notice can repeat).
    for (let i = 0; i < 2; i++) {
      api.hookline.events.emit("emit", {
        workspaceId: api.workspaceId,
        sourceId: id,
        event: late,
        deliveryIds: [],
        remote: true,
      });
    }
    await eventually(() => expect(stream.messages).toHaveLength(2));
    expect(stream.messages.map((m) => JSON.parse(m.data).event)).toEqual([{ n: 2 }, { n: 1 }]);
    // Its id is the highest seq sent, so resuming from it repeats nothing.
    expect(stream.messages[1]?.id).toBe(stream.messages[0]?.id);
    const lastSeen = stream.messages[1]?.id as string;
    await stream.close();
    await hit(3);
    const resumed = await openStream(api, `/v1/sources/${id}/sse`, lastSeen);
    await eventually(() => expect(resumed.messages).toHaveLength(1));
    expect(JSON.parse(resumed.messages[0]?.data ?? "{}").event).toEqual({ n: 3 });
    await resumed.close();
  });

  it("streams log lines", async () => {
    const code = `export default { name: "Talker", version: "0.1.0", run(e) { console.log("hello " + e.n); } };`;
    const source = await api.call("POST", "/v1/sources", { body: { component_code: code } });
    const id = source.body.data.id;
    const stream = await openStream(api, `/v1/sources/${id}/logs/sse`);
    await api.call("POST", `/v1/sources/${id}/run`, { body: { event: { n: 7 } } });
    await eventually(() =>
      expect(stream.messages.map((m) => JSON.parse(m.data).message)).toEqual(["hello 7"]),
    );
    expect(stream.messages[0]?.event).toBe("log");
    await stream.close();
  });

  it("is 401 without a key and 404 for an unknown source", async () => {
    expect((await api.raw(`/v1/sources/${sourceId}/sse`)).status).toBe(401);
    const missing = await api.call("GET", "/v1/sources/dc_nope/sse");
    expect([missing.status, missing.body.error.code]).toEqual([404, "not_found"]);
  });
});
