// A source's invocation queue is bounded (engine `limits.maxQueuedInvocations`): past it, its
// endpoint answers 429 `source_busy` with Retry-After, and a run over REST is 429 `source_busy`.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, MODES, startApi } from "./_harness.js";

/** A server that holds requests until `release()` (then answers at once), and says when one arrived. */
async function holdingServer() {
  const held: (() => void)[] = [];
  let released = false;
  let arrived: () => void = () => undefined;
  const first = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const server: Server = createServer((_req, res) => {
    if (released) res.end("ok");
    else held.push(() => res.end("ok"));
    arrived();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    first,
    release() {
      released = true;
      for (const end of held.splice(0)) end();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const SLOW_SOURCE = `export default {
  name: "Slow", version: "0.1.0",
  props: { http: "$.interface.http", upstream: { type: "string" } },
  async run(event) { await fetch(this.upstream); this.$emit(event.body); },
};`;

describe.each(MODES)("a busy source through %s", (mode) => {
  let api: Api;
  let upstream: Awaited<ReturnType<typeof holdingServer>>;
  beforeAll(async () => {
    upstream = await holdingServer();
    api = await startApi(mode, { engine: { limits: { maxQueuedInvocations: 1 }, worker: false } });
  });
  afterAll(async () => {
    upstream.release();
    await api.close();
    await upstream.close();
  });

  it("answers 429 source_busy with Retry-After once one invocation runs and one waits", async () => {
    const created = await api.call("POST", "/v1/sources", {
      body: { component_code: SLOW_SOURCE, configured_props: { upstream: upstream.url } },
    });
    expect(created.status).toBe(200);
    const id = created.body.data.id as string;
    const endpoint = new URL(created.body.data.endpoint_url as string).pathname;
    const post = (n: number) =>
      api.raw(endpoint, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: `{"n":${n}}`,
      });

    const running = post(1);
    await upstream.first;
    // One runs (held by the upstream), so of two more one waits and the other is refused at once.
    const two = [post(2), post(3)];
    const refused = await Promise.race(two);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await refused.json()) as { error: unknown }).error).toMatchObject({ code: "source_busy" });

    const run = await api.call("POST", `/v1/sources/${id}/run`, { body: { event: {} } });
    expect([run.status, run.body.error.code]).toEqual([429, "source_busy"]);

    upstream.release();
    const statuses = await Promise.all([running, ...two].map(async (r) => (await r).status));
    expect(statuses.sort()).toEqual([200, 200, 429]);
    const events = await api.call("GET", `/v1/sources/${id}/event_summaries`);
    expect(events.body.data).toHaveLength(2);
  });
});
