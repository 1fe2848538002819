// What an async options method receives, through REST (SPEC, "Async options method"): `page` and
// `prevContext` are the caller's (reserved for paging: a propDefinition's inputValues cannot
// override them), and `query` reaches the method only when the prop has `useQuery`.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Api, startApi } from "./_harness.js";

/** Each options method answers with the argument it got, as one JSON option. */
const ECHO = `
const http = {
  type: "app",
  app: "http",
  propDefinitions: {
    paged: { type: "string", async options(args) { return [JSON.stringify(args)]; } },
    searched: { type: "string", useQuery: true, async options(args) { return [JSON.stringify(args)]; } },
  },
};
export default {
  name: "Echo", version: "0.1.0",
  props: {
    http,
    hijacked: {
      propDefinition: [http, "paged", () => ({ page: 99, prevContext: "hijack", org: "acme" })],
    },
    searched: { propDefinition: [http, "searched"] },
    plain: { type: "string", async options(args) { return [JSON.stringify(args)]; } },
    queried: { type: "string", useQuery: true, async options(args) { return [JSON.stringify(args)]; } },
  },
  run() {},
};`;

describe("the arguments of an async options method", () => {
  let api: Api;
  let id: string;
  beforeAll(async () => {
    api = await startApi("fetch", { engine: { worker: false } });
    const created = await api.call("POST", "/v1/components", { body: { component_code: ECHO } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    id = created.body.data.id as string;
  });
  afterAll(() => api.close());

  /** What the prop's options method received, for a call with `body`. */
  async function received(prop: string, body: Record<string, unknown>) {
    const res = await api.call("POST", `/v1/components/${id}/props/${prop}/options`, { body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return JSON.parse(res.body.data.options[0] as string) as Record<string, unknown>;
  }

  it("page and prevContext are the caller's, whatever a propDefinition's inputValues return", async () => {
    expect(await received("hijacked", { page: 1, prevContext: { nextPageToken: "t2" } })).toEqual({
      page: 1,
      prevContext: { nextPageToken: "t2" },
      org: "acme",
    });
    // Not given: the first page and an empty context, still not the inputValues'.
    expect(await received("hijacked", {})).toEqual({ page: 0, prevContext: {}, org: "acme" });
  });

  it("query reaches the method only when the prop, or its definition, has useQuery", async () => {
    expect(await received("queried", { query: "sta" })).toEqual({ page: 0, prevContext: {}, query: "sta" });
    expect(await received("searched", { query: "sta" })).toEqual({ page: 0, prevContext: {}, query: "sta" });
    expect(await received("plain", { query: "sta" })).toEqual({ page: 0, prevContext: {} });
    expect(await received("hijacked", { query: "sta" })).toEqual({ page: 0, prevContext: {}, org: "acme" });
  });
});
