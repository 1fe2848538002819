import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTES } from "../src/index.js";
import { type Api, MODES, startApi } from "./_harness.js";

describe.each(MODES)("GET /v1/openapi.json through %s", (mode) => {
  let api: Api;
  beforeAll(async () => {
    api = await startApi(mode);
  });
  afterAll(() => api.close());

  it("is a valid OpenAPI 3.1 document that lists every route the router serves", async () => {
    const res = await api.raw("/v1/openapi.json");
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    const validator = new Validator();
    const result = await validator.validate(doc as unknown as Parameters<Validator["validate"]>[0]);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(doc.openapi).toBe("3.1.0");
    for (const route of ROUTES) {
      expect(
        doc.paths[route.path]?.[route.method.toLowerCase()],
        `${route.method} ${route.path}`,
      ).toBeDefined();
    }
    expect(doc.paths["/http/{endpoint_id}"]).toBeDefined();
  });
});
