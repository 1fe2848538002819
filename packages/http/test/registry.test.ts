// The registry, apps and interactive configuration over REST, through the handler and through a
// real node:http server: publish, list, read and deploy by key; connected accounts and app props;
// async options and dynamic props, with exact statuses and codes.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, MODES, startApi } from "./_harness.js";

/** A source on Pipedream's http app (no account needed) of a key, name and version. */
const ping = (version: string, key = "http-ping", name = "Ping") => `export default {
  key: ${JSON.stringify(key)}, name: ${JSON.stringify(name)}, version: ${JSON.stringify(version)},
  description: "Emits its version",
  props: { http: { type: "app", app: "http" }, label: { type: "string", optional: true, default: "x" } },
  run() { this.$emit({ version: ${JSON.stringify(version)}, label: this.label }); },
};`;

const GITHUB_SOURCE = `
const github = {
  type: "app",
  app: "github",
  propDefinitions: {
    repo: {
      type: "string",
      label: "Repository",
      async options({ page, org }) {
        return ["api", "web", "docs"].slice(page * 2, page * 2 + 2).map((r) => org + "/" + r + ":" + this.$auth.login);
      },
    },
  },
  methods: {
    login() { return this.$auth.login; },
  },
};
export default {
  key: "github-new-star",
  name: "New Star",
  version: "1.0.0",
  props: {
    github,
    org: { type: "string", label: "Organization" },
    repo: { propDefinition: [github, "repo", (c) => ({ org: c.org })] },
    letter: {
      type: "string",
      optional: true,
      async options({ prevContext }) {
        const at = prevContext.nextPageToken ?? 0;
        const letters = ["a", "b", "c", "d", "e"];
        return { options: letters.slice(at, at + 2), context: { nextPageToken: at + 2 < letters.length ? at + 2 : null } };
      },
    },
    word: {
      type: "string",
      optional: true,
      useQuery: true,
      async options({ query }) { return ["star", "start", "stop"].filter((w) => w.startsWith(query)); },
    },
  },
  run() { this.$emit({ login: this.github.login(), auth: this.github.$auth.token, repo: this.repo }); },
};`;

const SHEET = `
import { ConfigurationError } from "@pipedream/platform";
export default {
  name: "Sheet", version: "0.1.0",
  props: { sheet: { type: "string", options: ["orders", "empty"], reloadProps: true } },
  additionalProps() {
    if (this.sheet === "empty") throw new ConfigurationError("Sheet empty has no header row");
    return this.sheet ? { column: { type: "string", options: ["id", "total"] } } : {};
  },
  run() { this.$emit({ sheet: this.sheet, column: this.column }); },
};`;

// Serves component code by URL, for component_url.
let codeServer: Server;
let codeBase: string;
beforeAll(async () => {
  codeServer = createServer((req, res) => {
    if (req.url === "/ping.mjs")
      res.writeHead(200, { "content-type": "text/javascript" }).end(ping("3.0.0", "http-by-url", "By Url"));
    else res.writeHead(404).end("no");
  });
  await new Promise<void>((resolve) => codeServer.listen(0, "127.0.0.1", resolve));
  codeBase = `http://127.0.0.1:${(codeServer.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => codeServer.close(() => resolve())));

describe.each(MODES)("registry, apps and props over REST through %s", (mode) => {
  let api: Api;
  let otherKey: string;
  beforeAll(async () => {
    api = await startApi(mode);
    const other = await api.hookline.workspaces.create({ name: "globex" });
    otherKey = (await api.hookline.apiKeys.create(other.id)).key;
  });
  afterAll(() => api.close());

  describe("the registry", () => {
    it("publishes privately (query string) and publicly (JSON body), with the documented shape", async () => {
      const priv = await api.call("POST", "/v1/components/registry", {
        query: { component_code: ping("1.0.0") },
      });
      expect(priv.status).toBe(200);
      expect(priv.body.data).toEqual({
        id: expect.stringMatching(/^sc_/),
        key: "http-ping",
        name: "Ping",
        version: "1.0.0",
        visibility: "private",
        type: "source",
        app: "http",
        own: true,
        description: "Emits its version",
        code_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
        configurable_props: [
          { name: "http", type: "app", app: "http", label: "http", needsAccount: false },
          { name: "label", type: "string", optional: true, default: "x" },
        ],
        created_at: expect.any(Number),
      });
      const pub = await api.call("POST", "/v1/components/registry", {
        body: { component_code: ping("1.0.0", "http-pong", "Pong"), visibility: "public" },
      });
      expect([pub.status, pub.body.data.visibility, pub.body.data.key]).toEqual([200, "public", "http-pong"]);

      // Another workspace sees the public one only.
      const theirs = await api.call("GET", "/v1/components/registry", { key: otherKey });
      expect(theirs.body.data.map((c: { key: string }) => c.key)).toEqual(["http-pong"]);
      for (const path of ["/v1/components/registry/http-ping", "/v1/components/http-ping"]) {
        const hidden = await api.call("GET", path, { key: otherKey });
        expect([hidden.status, hidden.body.error.code], path).toEqual([404, "not_found"]);
      }
      const deployHidden = await api.call("POST", "/v1/sources", {
        key: otherKey,
        body: { component_key: "http-ping" },
      });
      expect([deployHidden.status, deployHidden.body.error.code]).toEqual([404, "not_found"]);
      const deployPublic = await api.call("POST", "/v1/sources", {
        key: otherKey,
        body: { component_key: "http-pong" },
      });
      expect(deployPublic.status).toBe(200);
      const run = await api.call("POST", `/v1/sources/${deployPublic.body.data.id}/run`, { key: otherKey });
      expect(run.body.data.emitted[0].event).toEqual({ version: "1.0.0", label: "x" });
    });

    it("takes a free-form version privately (SPEC: semantic versions are the registry's)", async () => {
      const res = await api.call("POST", "/v1/components/registry", {
        body: { component_code: ping("spring edition", "my-ping"), visibility: "private" },
      });
      expect([res.status, res.body.data?.version]).toEqual([200, "spring edition"]);
      const got = await api.call(
        "GET",
        `/v1/components/registry/${encodeURIComponent("my-ping@spring edition")}`,
      );
      expect([got.status, got.body.data?.version]).toEqual([200, "spring edition"]);
    });

    it("enforces the key and semantic-version rules with 422 and core's codes", async () => {
      const cases: [string, string, string][] = [
        [ping("1.0.0", "http ping"), "private", "invalid_registry_key"],
        [
          `export default { name: "Keyless", version: "1.0.0", run() {} };`,
          "private",
          "invalid_registry_key",
        ],
        [ping("1.0.0", "slack-ping"), "public", "invalid_registry_key"],
        [ping("1.0"), "public", "invalid_version"],
        [ping("1.0.0.0"), "public", "invalid_version"],
      ];
      for (const [component_code, visibility, code] of cases) {
        const res = await api.call("POST", "/v1/components/registry", {
          body: { component_code, visibility },
        });
        expect([res.status, res.body.error.code], component_code.slice(0, 60)).toEqual([422, code]);
        expect(res.body.error.details.problems.length).toBeGreaterThan(0);
      }
      const badVisibility = await api.call("POST", "/v1/components/registry", {
        body: { component_code: ping("1.0.1"), visibility: "everyone" },
      });
      expect([badVisibility.status, badVisibility.body.error.code]).toEqual([422, "validation_failed"]);
    });

    it("answers 409 component_version_exists for a key and version published again, registry_key_taken for another's public key", async () => {
      const again = await api.call("POST", "/v1/components/registry", {
        body: { component_code: ping("1.0.0"), visibility: "public" },
      });
      expect([again.status, again.body.error.code]).toEqual([409, "component_version_exists"]);
      const taken = await api.call("POST", "/v1/components/registry", {
        key: otherKey,
        body: { component_code: ping("2.0.0", "http-pong", "Pong"), visibility: "public" },
      });
      expect([taken.status, taken.body.error.code]).toEqual([409, "registry_key_taken"]);
    });

    it("reads by key (newest by semver or a pinned version) and deploys by key, newest or pinned", async () => {
      for (const version of ["1.2.0", "1.10.0", "1.9.0"]) {
        const res = await api.call("POST", "/v1/components/registry", {
          body: { component_code: ping(version, "http-versions", "Versions"), visibility: "public" },
        });
        expect(res.status).toBe(200);
      }
      const newest = await api.call("GET", "/v1/components/registry/http-versions");
      expect(newest.body.data.version).toBe("1.10.0");
      const pinned = await api.call("GET", "/v1/components/registry/http-versions", {
        query: { version: "1.2.0" },
      });
      expect(pinned.body.data.version).toBe("1.2.0");
      expect((await api.call("GET", "/v1/components/registry/http-versions@1.9.0")).body.data.version).toBe(
        "1.9.0",
      );
      expect((await api.call("GET", "/v1/components/http-versions")).body.data.version).toBe("1.10.0");
      const missing = await api.call("GET", "/v1/components/registry/http-versions", {
        query: { version: "4.0.0" },
      });
      expect([missing.status, missing.body.error.code]).toEqual([404, "not_found"]);

      const deployments: [Record<string, unknown>, string][] = [
        [{ component_key: "http-versions" }, "1.10.0"],
        [{ component_key: "http-versions@1.2.0" }, "1.2.0"],
        [{ component_key: "http-versions", component_version: "1.9.0" }, "1.9.0"],
      ];
      for (const [body, version] of deployments) {
        for (const key of [undefined, otherKey]) {
          const deployed = await api.call("POST", "/v1/sources", { key, body });
          expect(deployed.status, JSON.stringify(body)).toBe(200);
          const run = await api.call("POST", `/v1/sources/${deployed.body.data.id}/run`, { key });
          expect(run.body.data.emitted[0].event.version).toBe(version);
        }
      }
      // The query string works as well.
      const byQuery = await api.call("POST", "/v1/sources", {
        query: { component_key: "http-versions@1.2.0" },
      });
      expect(byQuery.status).toBe(200);
      // An update moves a source to the newest version.
      const moved = await api.call("PUT", `/v1/sources/${byQuery.body.data.id}`, {
        body: { component_key: "http-versions" },
      });
      expect(moved.status).toBe(200);
      const run = await api.call("POST", `/v1/sources/${byQuery.body.data.id}/run`);
      expect(run.body.data.emitted[0].event.version).toBe("1.10.0");

      const conflicting = await api.call("POST", "/v1/sources", {
        body: { component_key: "http-versions", component_id: newest.body.data.id },
      });
      expect([conflicting.status, conflicting.body.error.code]).toEqual([400, "conflicting_parameter"]);
      const twoVersions = await api.call("POST", "/v1/sources", {
        body: { component_key: "http-versions@1.2.0", component_version: "1.9.0" },
      });
      expect([twoVersions.status, twoVersions.body.error.code]).toEqual([400, "conflicting_parameter"]);
      const unknown = await api.call("POST", "/v1/sources", { body: { component_key: "http-nothing" } });
      expect([unknown.status, unknown.body.error.code]).toEqual([404, "not_found"]);
    });

    it("lists the newest per key or every version, paginated", async () => {
      const list = await api.call("GET", "/v1/components/registry");
      const keys = list.body.data.map((c: { key: string; version: string }) => `${c.key}@${c.version}`);
      expect(keys).toContain("http-versions@1.10.0");
      expect(keys).not.toContain("http-versions@1.2.0");
      const all = await api.call("GET", "/v1/components/registry", { query: { all_versions: "true" } });
      const versions = all.body.data
        .filter((c: { key: string }) => c.key === "http-versions")
        .map((c: { version: string }) => c.version);
      expect(versions.sort()).toEqual(["1.10.0", "1.2.0", "1.9.0"]);
      const first = await api.call("GET", "/v1/components/registry", {
        query: { all_versions: "true", limit: "2" },
      });
      expect(first.body.page_info).toMatchObject({ total_count: all.body.data.length, count: 2 });
      const second = await api.call("GET", "/v1/components/registry", {
        query: { all_versions: "true", limit: "2", after: first.body.page_info.end_cursor },
      });
      expect(second.body.data[0].id).toBe(all.body.data[2].id);
    });

    it("publishes and deploys from component_url through the guarded transport", async () => {
      const url = `${codeBase}/ping.mjs`;
      const published = await api.call("POST", "/v1/components/registry", { body: { component_url: url } });
      expect([published.status, published.body.data.key, published.body.data.version]).toEqual([
        200,
        "http-by-url",
        "3.0.0",
      ]);
      const deployed = await api.call("POST", "/v1/sources", { body: { component_url: url } });
      expect(deployed.status).toBe(200);
      const notThere = await api.call("POST", "/v1/sources", {
        body: { component_url: `${codeBase}/nope.mjs` },
      });
      expect([notThere.status, notThere.body.error.code]).toEqual([400, "bad_request"]);
      // Without the development switch, a private address is refused by the SSRF guard.
      const guarded = await startApi(mode, { engine: { allowPrivateUrls: false } });
      try {
        for (const path of ["/v1/sources", "/v1/components/registry"]) {
          const refused = await guarded.call("POST", path, { body: { component_url: url } });
          expect([refused.status, refused.body.error.code, refused.body.error.details?.cause], path).toEqual([
            400,
            "bad_request",
            "ssrf_blocked",
          ]);
        }
      } finally {
        await guarded.close();
      }
    });
  });

  describe("apps and connected accounts", () => {
    it("deploys an app source with an account; without one it is 422 account_required naming the prop", async () => {
      const missing = await api.call("POST", "/v1/sources", {
        body: { component_code: GITHUB_SOURCE, configured_props: { org: "acme", repo: "acme/api" } },
      });
      expect([missing.status, missing.body.error.code, missing.body.error.details]).toEqual([
        422,
        "account_required",
        { prop: "github", app: "github" },
      ]);
      expect(missing.body.error.message).toContain('"github"');
      const wrong = await api.call("POST", "/v1/sources", {
        body: {
          component_code: GITHUB_SOURCE,
          configured_props: { github: { authProvisionId: "apn_nope" }, org: "acme", repo: "r" },
        },
      });
      expect([wrong.status, wrong.body.error.code]).toEqual([422, "invalid_account"]);

      const account = await api.call("POST", "/v1/accounts", {
        body: { app: "github", name: "octocat", auth: { login: "octocat", token: "gho_rest" } },
      });
      const source = await api.call("POST", "/v1/sources", {
        body: {
          component_code: GITHUB_SOURCE,
          configured_props: {
            github: { authProvisionId: account.body.data.id },
            org: "acme",
            repo: "acme/api",
          },
        },
      });
      expect(source.status).toBe(200);
      expect(source.body.data.configured_props.github).toEqual({ authProvisionId: account.body.data.id });
      expect(JSON.stringify(source.body)).not.toContain("gho_rest");
      const run = await api.call("POST", `/v1/sources/${source.body.data.id}/run`);
      expect(run.body.data.emitted[0].event).toEqual({
        login: "octocat",
        auth: "gho_rest",
        repo: "acme/api",
      });
    });

    it("needs no account for the http app", async () => {
      const res = await api.call("POST", "/v1/sources", {
        body: { component_code: ping("0.0.1", "http-free", "Free") },
      });
      expect([res.status, res.body.data.configured_props]).toEqual([200, { label: "x" }]);
    });
  });

  describe("async options and dynamic props", () => {
    let id: string;
    let account: string;
    beforeAll(async () => {
      id = (await api.call("POST", "/v1/components", { body: { component_code: GITHUB_SOURCE } })).body.data
        .id;
      account = (
        await api.call("POST", "/v1/accounts", {
          body: { app: "github", auth: { login: "hubot", token: "t" } },
        })
      ).body.data.id;
    });

    it("pages by number (page in the query string) and feeds inputValues with the configured props", async () => {
      const configured_props = { github: { authProvisionId: account }, org: "umbrella" };
      const page0 = await api.call("POST", `/v1/components/${id}/props/repo/options`, {
        query: { page: "0" },
        body: { configured_props },
      });
      expect([page0.status, page0.body.data]).toEqual([
        200,
        { options: ["umbrella/api:hubot", "umbrella/web:hubot"] },
      ]);
      const page1 = await api.call("POST", `/v1/components/${id}/props/repo/options`, {
        query: { page: "1" },
        body: { configured_props },
      });
      expect(page1.body.data).toEqual({ options: ["umbrella/docs:hubot"] });
    });

    it("pages by token: prevContext in, { options, context: { nextPageToken } } out", async () => {
      const first = await api.call("POST", `/v1/components/${id}/props/letter/options`);
      expect(first.body.data).toEqual({ options: ["a", "b"], context: { nextPageToken: 2 } });
      const second = await api.call("POST", `/v1/components/${id}/props/letter/options`, {
        body: { prevContext: first.body.data.context },
      });
      expect(second.body.data).toEqual({ options: ["c", "d"], context: { nextPageToken: 4 } });
      const last = await api.call("POST", `/v1/components/${id}/props/letter/options`, {
        body: { prevContext: second.body.data.context },
      });
      expect(last.body.data).toEqual({ options: ["e"], context: { nextPageToken: null } });
    });

    it("passes the query of a useQuery prop, also when the component is named by key", async () => {
      const res = await api.call("POST", "/v1/components/github-new-star/props/word/options", {
        query: { query: "star" },
      });
      expect([res.status, res.body.data]).toEqual([200, { options: ["star", "start"] }]);
      const unknown = await api.call("POST", `/v1/components/${id}/props/nope/options`);
      expect([unknown.status, unknown.body.error.code]).toEqual([404, "not_found"]);
    });

    it("answers another workspace's options by key@version for a public component (what pd deploy <key> asks)", async () => {
      const published = await api.call("POST", "/v1/components/registry", {
        body: { component_id: id, visibility: "public" },
      });
      expect(published.status).toBe(200);
      const { key, version } = published.body.data as { key: string; version: string };
      const theirs = await api.call("POST", `/v1/components/${key}@${version}/props/word/options`, {
        key: otherKey,
        query: { query: "sta" },
      });
      expect([theirs.status, theirs.body.data]).toEqual([200, { options: ["star", "start"] }]);
      // Its id stays private to the owner.
      const byId = await api.call("POST", `/v1/components/${id}/props/word/options`, { key: otherKey });
      expect([byId.status, byId.body.error.code]).toEqual([404, "not_found"]);
    });

    it("reloads props after a reloadProps prop; a ConfigurationError reaches the caller with its message", async () => {
      const sheet = (await api.call("POST", "/v1/components", { body: { component_code: SHEET } })).body.data
        .id;
      const names = async (configured_props: Record<string, unknown>) =>
        (
          await api.call("POST", `/v1/components/${sheet}/reload_props`, { body: { configured_props } })
        ).body.data.configurable_props.map((p: { name: string }) => p.name);
      expect(await names({})).toEqual(["sheet"]);
      expect(await names({ sheet: "orders" })).toEqual(["sheet", "column"]);
      const failed = await api.call("POST", `/v1/components/${sheet}/reload_props`, {
        body: { configured_props: { sheet: "empty" } },
      });
      expect([failed.status, failed.body.error.code, failed.body.error.message]).toEqual([
        422,
        "configuration_error",
        "Sheet empty has no header row",
      ]);
      const options = await api.call("POST", `/v1/components/${sheet}/props/column/options`, {
        body: { configured_props: { sheet: "empty" } },
      });
      expect([options.status, options.body.error.code, options.body.error.message]).toEqual([
        422,
        "configuration_error",
        "Sheet empty has no header row",
      ]);
      const deployed = await api.call("POST", "/v1/sources", {
        body: { component_id: sheet, configured_props: { sheet: "orders", column: "total" } },
      });
      expect(deployed.status).toBe(200);
      const run = await api.call("POST", `/v1/sources/${deployed.body.data.id}/run`);
      expect(run.body.data.emitted[0].event).toEqual({ sheet: "orders", column: "total" });
      const badColumn = await api.call("POST", "/v1/sources", {
        body: { component_id: sheet, configured_props: { sheet: "orders", column: "nope" } },
      });
      expect([badColumn.status, badColumn.body.error.code]).toEqual([422, "invalid_prop_value"]);
    });
  });
});
