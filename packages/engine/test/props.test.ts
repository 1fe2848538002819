// Configuring props interactively through the engine's public API: async options (static, dynamic,
// paged by number and by token, with a query, fed by a propDefinition's inputValues) and dynamic
// props (reloadProps / additionalProps, ConfigurationError), then deploying with what was chosen.
import { createMemoryStore } from "@hookline/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHookline } from "../src/index.js";

const store = createMemoryStore();
const hookline = createHookline({ store, secretsKey: "props-test-key", worker: false });
let ws: string;
afterAll(() => hookline.close());

const GITHUB_APP = `
export default {
  type: "app",
  app: "github",
  propDefinitions: {
    org: {
      type: "string",
      label: "Organization",
      async options() { return [this.$auth.login, "acme"]; },
    },
    repo: {
      type: "string",
      label: "Repository",
      async options({ page, org }) { return this.listRepos(org, page); },
    },
  },
  methods: {
    listRepos(org, page) {
      const all = ["api", "web", "docs"].map((r) => org + "/" + r + " (as " + this.$auth.login + ")");
      return all.slice(page * 2, page * 2 + 2);
    },
  },
};`;

const LETTERS = "abcdefg".split("");
const PICKER = `
import github from "./github.app.mjs";
const LETTERS = ${JSON.stringify(LETTERS)};
export default {
  key: "github-picker",
  name: "Picker",
  version: "0.1.0",
  props: {
    github,
    color: { type: "string", label: "Color", options: ["red", { label: "Blue", value: "blue" }] },
    region: {
      type: "string",
      async options() { return [{ label: "Europe", value: "eu" }, { label: "United States", value: "us" }]; },
    },
    numbered: {
      type: "string",
      async options({ page }) { return LETTERS.slice(page * 3, page * 3 + 3); },
    },
    tokened: {
      type: "string",
      async options({ prevContext }) {
        const at = prevContext.nextPageToken ? Number(prevContext.nextPageToken.slice(4)) : 0;
        const next = at + 3 < LETTERS.length ? "tok_" + (at + 3) : undefined;
        return { options: LETTERS.slice(at, at + 3).map((l) => ({ label: l.toUpperCase(), value: l })), context: { nextPageToken: next } };
      },
    },
    search: {
      type: "string",
      useQuery: true,
      async options({ query, page }) {
        return ["alpha", "alpine", "beta", "gamma"].filter((w) => w.includes(query ?? "")).map((w) => w + "#" + page);
      },
    },
    org: { propDefinition: [github, "org"] },
    repo: { propDefinition: [github, "repo", (configured) => ({ org: configured.org.toUpperCase() })] },
  },
  run() {},
};`;

let picker: string;
let account: string;
beforeAll(async () => {
  ws = (await hookline.workspaces.create({ name: "acme" })).id;
  picker = (
    await hookline.components.save(ws, {
      code: PICKER,
      filename: "picker.mjs",
      files: { "github.app.mjs": GITHUB_APP },
    })
  ).id;
  account = (
    await hookline.accounts.create(ws, {
      app: "github",
      credentials: { login: "octocat", oauth_access_token: "t" },
    })
  ).id;
});

const options = (prop: string, args: Parameters<typeof hookline.sources.options>[3] = {}) =>
  hookline.sources.options(ws, { componentId: picker }, prop, args);

describe("async options", () => {
  it("returns static options as declared", async () => {
    expect(await options("color")).toEqual({ options: ["red", { label: "Blue", value: "blue" }] });
  });

  it("runs an options method", async () => {
    expect(await options("region")).toEqual({
      options: [
        { label: "Europe", value: "eu" },
        { label: "United States", value: "us" },
      ],
    });
  });

  it("pages by number: page 0, 1, 2, then an empty page", async () => {
    const pages = [];
    for (let page = 0; page < 4; page++) pages.push((await options("numbered", { page })).options);
    expect(pages).toEqual([["a", "b", "c"], ["d", "e", "f"], ["g"], []]);
  });

  it("pages by token: prevContext in, { options, context: { nextPageToken } } out, until no token", async () => {
    const seen: unknown[] = [];
    let prevContext: unknown;
    for (let i = 0; i < 5; i++) {
      const result = await options("tokened", prevContext === undefined ? {} : { prevContext });
      seen.push(...result.options.map((o) => (o as { value: string }).value));
      const token = (result.context as { nextPageToken?: string }).nextPageToken;
      if (token === undefined) break;
      expect(result.context).toEqual({ nextPageToken: expect.stringMatching(/^tok_\d+$/) });
      prevContext = result.context;
    }
    expect(seen).toEqual(LETTERS);
    expect(await options("tokened", { prevContext: { nextPageToken: "tok_3" } })).toEqual({
      options: [
        { label: "D", value: "d" },
        { label: "E", value: "e" },
        { label: "F", value: "f" },
      ],
      context: { nextPageToken: "tok_6" },
    });
  });

  it("passes the query of a useQuery prop (with the page)", async () => {
    expect(await options("search", { query: "alp" })).toEqual({ options: ["alpha#0", "alpine#0"] });
    expect(await options("search", { query: "ta", page: 1 })).toEqual({ options: ["beta#1"] });
  });

  it("runs an app's propDefinition options with the connected account's $auth", async () => {
    expect(await options("org", { props: { github: { authProvisionId: account } } })).toEqual({
      options: ["octocat", "acme"],
    });
    // Another app's account gives no credentials to the github app.
    const slack = await hookline.accounts.create(ws, { app: "slack", credentials: { login: "slackbot" } });
    expect(await options("org", { props: { github: { authProvisionId: slack.id } } })).toEqual({
      options: [null, "acme"],
    });
  });

  it("feeds a propDefinition's inputValues function with the props configured so far", async () => {
    const props = { github: { authProvisionId: account }, org: "umbrella" };
    expect(await options("repo", { props, page: 0 })).toEqual({
      options: ["UMBRELLA/api (as octocat)", "UMBRELLA/web (as octocat)"],
    });
    expect(await options("repo", { props, page: 1 })).toEqual({ options: ["UMBRELLA/docs (as octocat)"] });
  });

  it("finds the component by key too, and reports unknown props and components", async () => {
    expect(await hookline.sources.options(ws, { componentId: "github-picker" }, "color")).toEqual({
      options: ["red", { label: "Blue", value: "blue" }],
    });
    await expect(options("nope")).rejects.toMatchObject({ code: "not_found", status: 404 });
    await expect(hookline.sources.options(ws, { componentId: "sc_nope" }, "color")).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

// A sheet picker: choosing a sheet (reloadProps) adds a column prop with that sheet's headers.
const SHEET = `
import { ConfigurationError } from "@pipedream/platform";
const HEADERS = { orders: ["id", "total"], people: ["name", "email"] };
export default {
  name: "Sheet Rows",
  version: "0.1.0",
  props: {
    sheet: { type: "string", label: "Sheet", options: ["orders", "people", "empty"], reloadProps: true },
  },
  async additionalProps(previous) {
    if (!this.sheet) return {};
    if (!HEADERS[this.sheet]) {
      throw new ConfigurationError('The sheet "' + this.sheet + '" has no header row: add one, then refresh the fields');
    }
    const props = {
      column: {
        type: "string",
        label: "Column",
        description: "Seen before: " + Object.keys(previous).sort().join(","),
        async options() { return HEADERS[this.sheet]; },
      },
    };
    if (this.sheet === "orders") {
      props.minTotal = { type: "integer", min: 0, optional: true, default: 10 };
      props.apiKey = { type: "string", secret: true };
    }
    return props;
  },
  run() {
    this.$emit({ sheet: this.sheet, column: this.column, minTotal: this.minTotal, apiKey: this.apiKey });
  },
};`;

describe("dynamic props", () => {
  let sheet: string;
  beforeAll(async () => {
    sheet = (await hookline.components.save(ws, { code: SHEET, filename: "sheet.mjs" })).id;
  });

  it("adds additionalProps after a reloadProps prop; a new result replaces the previous one", async () => {
    expect(Object.keys(await hookline.components.reloadProps(ws, sheet, {}))).toEqual(["sheet"]);
    const orders = await hookline.components.reloadProps(ws, sheet, { sheet: "orders" });
    expect(Object.keys(orders)).toEqual(["sheet", "column", "minTotal", "apiKey"]);
    expect(orders.column).toMatchObject({
      type: "string",
      dynamicOptions: true,
      description: "Seen before: sheet",
    });
    expect(orders.minTotal).toMatchObject({ type: "integer", min: 0, default: 10 });
    // people replaces the orders result: minTotal and apiKey are gone.
    const people = await hookline.components.reloadProps(ws, sheet, { sheet: "people" });
    expect(Object.keys(people)).toEqual(["sheet", "column"]);
    // previousPropDefs: the props merged with the previous additionalProps result, when given.
    const { sheet: _declared, ...previous } = orders;
    const again = await hookline.components.reloadProps(ws, sheet, { sheet: "people" }, { previous });
    expect(again.column?.description).toBe("Seen before: apiKey,column,minTotal,sheet");
  });

  it("answers the options of a prop additionalProps defined, with the configured values", async () => {
    expect(
      await hookline.sources.options(ws, { componentId: sheet }, "column", { props: { sheet: "people" } }),
    ).toEqual({
      options: ["name", "email"],
    });
  });

  it("lets a ConfigurationError's message reach the caller as is", async () => {
    const message = 'The sheet "empty" has no header row: add one, then refresh the fields';
    await expect(hookline.components.reloadProps(ws, sheet, { sheet: "empty" })).rejects.toMatchObject({
      code: "configuration_error",
      status: 422,
      message,
    });
    await expect(
      hookline.sources.options(ws, { componentId: sheet }, "column", { props: { sheet: "empty" } }),
    ).rejects.toMatchObject({ code: "configuration_error", message });
    await expect(
      hookline.sources.deploy(ws, { componentId: sheet, props: { sheet: "empty" } }),
    ).rejects.toMatchObject({
      code: "configuration_error",
      message,
    });
  });

  it("deploys with values for the additional props: validated, defaults applied, secrets sealed", async () => {
    await expect(
      hookline.sources.deploy(ws, { componentId: sheet, props: { sheet: "orders", column: "total" } }),
    ).rejects.toMatchObject({
      code: "invalid_prop_value",
      details: { problems: [expect.objectContaining({ path: "apiKey", code: "required" })] },
    });
    await expect(
      hookline.sources.deploy(ws, {
        componentId: sheet,
        props: { sheet: "people", column: "name", minTotal: 5 },
      }),
    ).rejects.toMatchObject({
      code: "invalid_prop_value",
      details: { problems: [expect.objectContaining({ path: "minTotal", code: "unknown_prop" })] },
    });

    const source = await hookline.sources.deploy(ws, {
      componentId: sheet,
      props: { sheet: "orders", column: "total", apiKey: "sk_dynamic" },
    });
    expect(source.props).toEqual({ sheet: "orders", column: "total", minTotal: 10, apiKey: "********" });
    expect(Object.keys(source.description.props)).toEqual(["sheet", "column", "minTotal", "apiKey"]);
    expect(JSON.stringify(await store.deployedComponents.get(ws, source.id))).not.toContain("sk_dynamic");
    expect((await hookline.sources.run(ws, source.id)).emitted[0]?.body).toEqual({
      sheet: "orders",
      column: "total",
      minTotal: 10,
      apiKey: "sk_dynamic",
    });

    // Choosing another sheet on update replaces the additional props: minTotal and apiKey go.
    const updated = await hookline.sources.update(ws, source.id, {
      props: { sheet: "people", column: "email" },
    });
    expect(updated.props).toEqual({ sheet: "people", column: "email" });
    expect(Object.keys(updated.description.props)).toEqual(["sheet", "column"]);
    expect((await hookline.sources.run(ws, source.id)).emitted[0]?.body).toEqual({
      sheet: "people",
      column: "email",
    });
    // An update that only renames keeps the additional props and their values.
    const renamed = await hookline.sources.update(ws, source.id, { name: "People emails" });
    expect(renamed.props).toEqual({ sheet: "people", column: "email" });
    expect((await hookline.sources.get(ws, source.id)).description.props.column).toMatchObject({
      type: "string",
    });
  });
});
