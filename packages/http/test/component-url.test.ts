import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, MODES, startApi } from "./_harness.js";

// A loopback file server laid out like Pipedream's components repository (the app is "http", which
// needs no connected account).
const FILES: Record<string, string> = {
  "/components/acme/acme.app.mjs": `import constants from "./common/constants.mjs";
    export default { type: "app", app: "http", methods: { where() { return constants.WHERE; } } };`,
  "/components/acme/common/constants.mjs": `export default { WHERE: "components/acme/common" };`,
  "/components/acme/sources/common/base.mjs": `import acme from "../../acme.app.mjs";
    export default { props: { acme }, methods: { base() { return "sources/common/base"; } } };`,
  "/components/acme/sources/common/constants.mjs": `export default { WHERE: "sources/common" };`,
  "/components/acme/sources/new-thing/new-thing.mjs": `import common from "../common/base.mjs";
    import constants from "../common/constants.mjs";
    import sample from "./test-event";
    export default {
      ...common,
      key: "http-new-thing", name: "New Thing", version: "0.1.0", type: "source",
      async run(event) {
        this.$emit({ app: this.acme.where(), local: constants.WHERE, base: this.base(), sample, got: event });
      },
    };`,
  "/components/acme/sources/new-thing/test-event.mjs": `export default { sample: true };`,
  "/broken/entry.mjs": `import gone from "./gone.mjs"; export default { name: "B", version: "1", run() {} };`,
};
// A chain of 60 files, each importing the next: over the bound of 50.
for (let i = 0; i < 60; i++)
  FILES[`/chain/f${i}.mjs`] =
    i === 59 ? "export default 1;" : `import n from "./f${i + 1}.mjs"; export default n + 1;`;
FILES["/chain/entry.mjs"] =
  `import n from "./f0.mjs"; export default { name: "Chain", version: "1", run() { this.$emit(n); } };`;
FILES["/big/entry.mjs"] =
  `import a from "./a.mjs"; import b from "./b.mjs"; import c from "./c.mjs"; import d from "./d.mjs"; import e from "./e.mjs"; import f from "./f.mjs";
  export default { name: "Big", version: "1", run() { this.$emit(a + b + c + d + e + f); } };`;
for (const name of ["a", "b", "c", "d", "e", "f"])
  FILES[`/big/${name}.mjs`] = `export default ${JSON.stringify("x".repeat(1_000_000))}.length;`;

let server: Server;
let base = "";
const asked: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? "/";
    asked.push(path);
    const body = FILES[path];
    if (body === undefined) res.writeHead(404).end("not here");
    else res.writeHead(200, { "content-type": "text/javascript" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe.each(MODES)("component_url with relative imports through %s", (mode) => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi(mode);
  });
  afterAll(() => api.close());

  it("deploys a source whose relative imports are fetched from the same base URL, and runs it", async () => {
    const url = `${base}/components/acme/sources/new-thing/new-thing.mjs`;
    const deployed = await api.call("POST", "/v1/sources", { body: { component_url: url } });
    expect(deployed.status).toBe(200);
    const run = await api.call("POST", `/v1/sources/${deployed.body.data.id}/run`, {
      body: { event: { n: 1 } },
    });
    expect(run.status).toBe(200);
    expect(run.body.data.error).toBeNull();
    expect(run.body.data.emitted[0].event).toEqual({
      app: "components/acme/common",
      local: "sources/common",
      base: "sources/common/base",
      sample: { sample: true },
      got: { n: 1 },
    });
    // "./test-event" has no extension: the .mjs file was tried after the bare name.
    expect(asked).toEqual(
      expect.arrayContaining([
        "/components/acme/sources/new-thing/test-event",
        "/components/acme/sources/new-thing/test-event.mjs",
        "/components/acme/acme.app.mjs",
        "/components/acme/common/constants.mjs",
      ]),
    );
    const published = await api.call("POST", "/v1/components/registry", { body: { component_url: url } });
    expect([published.status, published.body.data.key]).toEqual([200, "http-new-thing"]);
  });

  it("names a relative file that cannot be fetched (422 module_not_found)", async () => {
    const r = await api.call("POST", "/v1/sources", { body: { component_url: `${base}/broken/entry.mjs` } });
    expect([r.status, r.body.error.code]).toEqual([422, "module_not_found"]);
    expect(r.body.error.message).toBe(
      `Cannot fetch "gone.mjs", imported by the component: ${base}/broken/gone.mjs answered 404`,
    );
  });

  it("bounds the number and the size of the files (413 payload_too_large)", async () => {
    const many = await api.call("POST", "/v1/sources", {
      body: { component_url: `${base}/chain/entry.mjs` },
    });
    expect([many.status, many.body.error.code, many.body.error.message]).toEqual([
      413,
      "payload_too_large",
      "The component imports more than 50 relative files",
    ]);
    const big = await api.call("POST", "/v1/sources", { body: { component_url: `${base}/big/entry.mjs` } });
    expect([big.status, big.body.error.code, big.body.error.message]).toEqual([
      413,
      "payload_too_large",
      "The component and its relative files are over 5242880 bytes",
    ]);
  });

  it("refuses a component_url that is not a URL (400 bad_request)", async () => {
    const r = await api.call("POST", "/v1/sources", { body: { component_url: "not a url" } });
    expect([r.status, r.body.error.code]).toEqual([400, "bad_request"]);
  });
});
