// Apps and managed auth through the engine's public API: an app file shared by a source, connected
// accounts holding its $auth, encrypted at rest, read-only in the sandbox.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createMemoryStore } from "@hookline/store";
import { createSqlStore, pgliteClient } from "@hookline/store-sql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freshPglite } from "../../store-sql/test/fresh-pglite.js";
import { createHookline, DEFAULT_NO_AUTH_APPS } from "../src/index.js";

// A GitHub-like API on loopback: answers /user for the right bearer token only.
const seen: IncomingHttpHeaders[] = [];
let api: Server;
let apiUrl: string;
beforeAll(async () => {
  api = createServer((req, res) => {
    seen.push(req.headers);
    if (req.headers.authorization !== "Bearer gho_s3cret-token") {
      res
        .writeHead(401, { "content-type": "application/json" })
        .end(JSON.stringify({ message: "Bad credentials" }));
      return;
    }
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ login: "octocat", id: 1 }));
  });
  await new Promise<void>((resolve) => api.listen(0, "127.0.0.1", resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => api.close(() => resolve())));

const store = createMemoryStore();
const hookline = createHookline({ store, secretsKey: "apps-test-key", allowPrivateUrls: true });
let ws: string;
beforeAll(async () => {
  ws = (await hookline.workspaces.create({ name: "acme" })).id;
});
afterAll(() => hookline.close());

const TOKEN = "gho_s3cret-token";

// The app file: propDefinitions and methods that call the API with this.$auth.
const GITHUB_APP = `
export default {
  type: "app",
  app: "github",
  propDefinitions: {
    org: { type: "string", label: "Organization" },
  },
  methods: {
    _headers() {
      return { authorization: "Bearer " + this.$auth.oauth_access_token };
    },
    login() {
      return this.$auth.login;
    },
    async getUser() {
      const res = await fetch(this.$auth.api_url + "/user", { headers: this._headers() });
      return { status: res.status, body: await res.json() };
    },
    tamper() {
      try { this.$auth.login = "mallory"; return "written"; } catch (e) { return e.constructor.name; }
    },
  },
};`;

// A source in another folder that imports the app file by relative path, as Pipedream's do.
const NEW_STAR = `
import github from "../../github.app.mjs";

export default {
  key: "github-new-star",
  name: "New Star",
  version: "0.1.0",
  props: {
    github,
    db: "$.service.db",
    org: { propDefinition: [github, "org"] },
  },
  hooks: {
    async deploy() {
      const user = await this.github.getUser();
      this.db.set("deployedAs", user.body.login);
    },
    async activate() {
      this.db.set("activatedWith", this.github.$auth.oauth_access_token.slice(0, 4));
    },
  },
  methods: {
    who() {
      return this.github.login() + "@" + this.org;
    },
  },
  async run() {
    const user = await this.github.getUser();
    this.$emit({
      deployedAs: this.db.get("deployedAs"),
      activatedWith: this.db.get("activatedWith"),
      viaMethod: this.who(),
      direct: this.github.$auth.login,
      user,
    });
  },
};`;

const newStar = (props: Record<string, unknown>) => ({
  code: {
    code: NEW_STAR,
    filename: "sources/new-star/new-star.mjs",
    files: { "../../github.app.mjs": GITHUB_APP },
  },
  props,
});

async function connectGithub(workspaceId = ws, token = TOKEN) {
  return hookline.accounts.create(workspaceId, {
    app: "github",
    name: "octocat",
    credentials: { oauth_access_token: token, login: "octocat", api_url: apiUrl },
  });
}

describe("app props with a connected account", () => {
  it("gives this.<app>.$auth and the app's methods (reading this.$auth) to run, hooks and methods", async () => {
    const account = await connectGithub();
    seen.length = 0;
    const source = await hookline.sources.deploy(
      ws,
      newStar({ github: { authProvisionId: account.id }, org: "acme" }),
    );
    // The deploy() hook called the API through the app method with the account's token.
    expect(seen.map((h) => h.authorization)).toEqual([`Bearer ${TOKEN}`]);
    expect(source.props.github).toEqual({ authProvisionId: account.id });

    const run = await hookline.sources.run(ws, source.id);
    expect(run.error).toBeUndefined();
    expect(run.emitted[0]?.body).toEqual({
      deployedAs: "octocat",
      activatedWith: "gho_",
      viaMethod: "octocat@acme",
      direct: "octocat",
      user: { status: 200, body: { login: "octocat", id: 1 } },
    });
    expect(seen).toHaveLength(2);
    await hookline.sources.delete(ws, source.id);
  });

  it("keeps $auth read-only inside the sandbox, for the component and for app methods", async () => {
    const account = await connectGithub();
    const code = `
      import github from "./github.app.mjs";
      export default {
        name: "Tamper", version: "0.1.0",
        props: { github },
        async run() {
          // Each write is refused (a TypeError in strict code, ignored in sloppy code): read back.
          const auth = () => this.github.$auth;
          try { auth().oauth_access_token = "stolen"; } catch {}
          try { this.github.$auth = { oauth_access_token: "replaced" }; } catch {}
          try { delete auth().login; } catch {}
          try { auth().extra = 1; } catch {}
          this.github.tamper();
          this.$emit({
            frozen: Object.isFrozen(auth()),
            auth: auth(),
            token: this.github.$auth.oauth_access_token,
            login: this.github.login(),
          });
        },
      };`;
    const source = await hookline.sources.deploy(ws, {
      code: { code, filename: "tamper.mjs", files: { "github.app.mjs": GITHUB_APP } },
      props: { github: { authProvisionId: account.id } },
    });
    for (let i = 0; i < 2; i++) {
      const run = await hookline.sources.run(ws, source.id);
      expect(run.error).toBeUndefined();
      expect(run.emitted[0]?.body).toEqual({
        frozen: true,
        auth: { oauth_access_token: TOKEN, login: "octocat", api_url: apiUrl },
        token: TOKEN,
        login: "octocat",
      });
    }
    await hookline.sources.delete(ws, source.id);
  });

  it("refuses a deploy without the required account with account_required naming the prop", async () => {
    const before = (await hookline.sources.list(ws)).length;
    for (const props of [{ org: "acme" }, { github: null, org: "acme" }]) {
      const error = await hookline.sources.deploy(ws, newStar(props)).catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: "account_required",
        status: 422,
        details: { prop: "github", app: "github" },
        message: expect.stringContaining('app prop "github" needs a connected github account'),
      });
    }
    expect((await hookline.sources.list(ws)).length).toBe(before);
  });

  it("refuses an unknown account, another workspace's and another app's with invalid_account", async () => {
    const other = (await hookline.workspaces.create({ name: "other" })).id;
    const theirs = await connectGithub(other);
    const slack = await hookline.accounts.create(ws, { app: "slack", credentials: { bot_token: "xoxb-1" } });
    const cases: [unknown, string][] = [
      [{ authProvisionId: "apn_missing" }, "does not exist in this workspace"],
      [{ authProvisionId: theirs.id }, "does not exist in this workspace"],
      [{ authProvisionId: slack.id }, `needs a github account; ${slack.id} is a slack account`],
      [{ token: "x" }, 'takes { "authProvisionId": "apn_..." }'],
    ];
    for (const [github, message] of cases) {
      await expect(hookline.sources.deploy(ws, newStar({ github, org: "acme" }))).rejects.toMatchObject({
        code: "invalid_account",
        status: 422,
        details: expect.objectContaining({ prop: "github" }),
        message: expect.stringContaining(message),
      });
    }
  });

  it("stores credentials encrypted: the raw store never holds them in plain text", async () => {
    const account = await connectGithub(ws, "gho_only-in-this-test");
    const raw = await store.accounts.get(ws, account.id);
    expect(raw?.credentials).toMatch(/^enc:v1:/);
    expect(raw?.credentials).not.toContain("gho_only-in-this-test");
    const source = await hookline.sources.deploy(
      ws,
      newStar({ github: { authProvisionId: account.id }, org: "acme" }),
    );
    // Everything the store holds for the workspace, as it holds it.
    const dump = JSON.stringify([
      await store.accounts.list(ws),
      await store.deployedComponents.list(ws),
      await store.savedComponents.list(ws),
      await store.kv.list(source.id),
      await store.logs.list(ws, source.id),
    ]);
    expect(dump).toContain(account.id);
    expect(dump).not.toContain("gho_only-in-this-test");
    // Never returned by the API either.
    expect(JSON.stringify(await hookline.accounts.list(ws))).not.toContain("gho_only-in-this-test");
    expect(JSON.stringify(await hookline.sources.get(ws, source.id))).not.toContain("gho_only-in-this-test");
    // An engine over the same store with another secrets key cannot read them.
    const intruder = createHookline({ store, secretsKey: "another-key", worker: false });
    const run = await intruder.sources.run(ws, source.id).catch((e: unknown) => e);
    expect(run).toMatchObject({
      code: "internal_error",
      message: expect.stringContaining("could not be decrypted"),
    });
    await intruder.close();
    await hookline.sources.delete(ws, source.id);
  });

  it("stores credentials encrypted in the SQL store: no table row holds them", async () => {
    const db = await freshPglite();
    const sqlStore = await createSqlStore(pgliteClient(db));
    const sql = createHookline({
      store: sqlStore,
      secretsKey: "apps-test-key",
      allowPrivateUrls: true,
      worker: false,
    });
    try {
      const w = (await sql.workspaces.create({ name: "sql" })).id;
      const account = await sql.accounts.create(w, {
        app: "github",
        credentials: { oauth_access_token: "gho_sql-only", login: "octocat", api_url: apiUrl },
      });
      const source = await sql.sources.deploy(
        w,
        newStar({ github: { authProvisionId: account.id }, org: "acme" }),
      );
      const [accounts, deployed] = await Promise.all([
        db.query<{ credentials: string }>("SELECT * FROM accounts"),
        db.query<{ props: string }>("SELECT props FROM deployed_components"),
      ]);
      expect(accounts.rows).toHaveLength(1);
      expect(accounts.rows[0]?.credentials).toMatch(/^enc:v1:/);
      expect(JSON.stringify([accounts.rows, deployed.rows])).not.toContain("gho_sql-only");
      // The props column holds the props' JSON text, as written.
      expect(deployed.rows.map((row) => JSON.parse(row.props))).toEqual([
        { github: { authProvisionId: account.id }, org: "acme" },
      ]);
      // Opened only for the sandbox.
      const run = await sql.sources.run(w, source.id);
      expect(run.emitted[0]?.body).toMatchObject({ direct: "octocat" });
    } finally {
      await sql.close();
      await sqlStore.close();
    }
  }, 60_000);

  it("refuses to delete an account a source uses (account_in_use), and allows it afterwards", async () => {
    const account = await connectGithub();
    const source = await hookline.sources.deploy(
      ws,
      newStar({ github: { authProvisionId: account.id }, org: "acme" }),
    );
    await expect(hookline.accounts.delete(ws, account.id)).rejects.toMatchObject({
      code: "account_in_use",
      status: 409,
      details: { sources: [source.id] },
    });
    await hookline.sources.delete(ws, source.id);
    await hookline.accounts.delete(ws, account.id);
    await expect(hookline.accounts.get(ws, account.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it("switches accounts on update: the new $auth reaches the instance, the old one is freed", async () => {
    const first = await connectGithub();
    const second = await hookline.accounts.create(ws, {
      app: "github",
      credentials: { oauth_access_token: TOKEN, login: "hubot", api_url: apiUrl },
    });
    const source = await hookline.sources.deploy(
      ws,
      newStar({ github: { authProvisionId: first.id }, org: "acme" }),
    );
    await hookline.sources.update(ws, source.id, { props: { github: { authProvisionId: second.id } } });
    const run = await hookline.sources.run(ws, source.id);
    expect(run.emitted[0]?.body).toMatchObject({ direct: "hubot", viaMethod: "hubot@acme" });
    await hookline.accounts.delete(ws, first.id);
    await hookline.sources.delete(ws, source.id);
  });
});

describe("apps that need no credentials", () => {
  // Pipedream's http app, as it is in its registry: no auth, a few helpers.
  const HTTP_APP = `
export default {
  type: "app",
  app: "http",
  propDefinitions: {},
  methods: {
    describe() { return { auth: this.$auth, keys: Object.keys(this.$auth).length }; },
  },
};`;
  const WEBHOOK = `
import http from "./http.app.mjs";
export default {
  key: "http-new-requests",
  name: "New Requests",
  version: "0.0.1",
  props: { http, endpoint: { type: "$.interface.http", customResponse: false } },
  run(event) { this.$emit({ body: event.body, app: this.http.describe() }); },
};`;
  const deployWebhook = (engine = hookline, props: Record<string, unknown> = {}) =>
    engine.sources.deploy(ws, {
      code: { code: WEBHOOK, filename: "new-requests.mjs", files: { "http.app.mjs": HTTP_APP } },
      props,
    });

  it("deploys Pipedream's http app without an account, with an empty $auth", async () => {
    expect(DEFAULT_NO_AUTH_APPS).toContain("http");
    const source = await deployWebhook();
    expect(source.props).toEqual({});
    const reply = await hookline.ingress(source.endpointId as string, {
      method: "POST",
      path: "/",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ hello: "world" }),
    });
    expect(reply.status).toBe(200);
    const events = await hookline.sources.events(ws, source.id);
    expect(events.items[0]?.body).toEqual({ body: { hello: "world" }, app: { auth: {}, keys: 0 } });
    await hookline.sources.delete(ws, source.id);
  });

  it("needs no account for an optional app prop either", async () => {
    const source = await hookline.sources.deploy(ws, {
      code: {
        code: `export default { name: "Maybe Slack", version: "0.1.0", props: { slack: { type: "app", app: "slack", optional: true } }, run() { this.$emit({ auth: this.slack.$auth }); } };`,
      },
    });
    expect((await hookline.sources.run(ws, source.id)).emitted[0]?.body).toEqual({ auth: {} });
    await hookline.sources.delete(ws, source.id);
  });

  it("follows the noAuthApps option: with an empty list, the http app needs an account too", async () => {
    const strict = createHookline({ store, secretsKey: "apps-test-key", noAuthApps: [], worker: false });
    await expect(deployWebhook(strict)).rejects.toMatchObject({
      code: "account_required",
      details: { prop: "http", app: "http" },
    });
    const account = await strict.accounts.create(ws, { app: "http", credentials: { note: "unused" } });
    const source = await deployWebhook(strict, { http: { authProvisionId: account.id } });
    expect((await strict.sources.run(ws, source.id, { body: 1 })).error).toBeUndefined();
    await strict.sources.delete(ws, source.id);
    await strict.close();
  });
});
