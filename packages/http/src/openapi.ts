/**
 * The OpenAPI 3.1 document, generated from the same route table and TypeBox schemas that
 * validate requests (TypeBox schemas are JSON Schema, which OpenAPI 3.1 uses as is).
 */
import { ERROR_CODES } from "@hookline/core";
import type { TSchema } from "typebox";
import type { Route } from "./_define.js";

/** Strips TypeBox's symbol keys so a schema is plain JSON Schema. */
function plain(schema: TSchema): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}

const ErrorBody = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message"],
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_CODES) },
        message: { type: "string" },
        details: {},
      },
    },
  },
};

const PageInfo = {
  type: "object",
  required: ["count", "start_cursor", "end_cursor"],
  properties: {
    total_count: { type: "integer" },
    count: { type: "integer" },
    start_cursor: { type: ["string", "null"] },
    end_cursor: { type: ["string", "null"] },
    has_more: { type: "boolean" },
    scanned: { type: "integer" },
    scan_budget: { type: "integer" },
    budget_reached: { type: "boolean" },
  },
};

/**
 * The `warnings` beside `data`: SPEC rules a component breaks that Pipedream accepts, a webhook URL
 * the SSRF guard refuses and how to allow it...
 */
const Warnings = {
  type: "array",
  description:
    "Things to know about the result (present only when there are any): SPEC rules a component breaks that Pipedream accepts, a webhook URL the SSRF guard refuses and how to allow it",
  items: {
    type: "object",
    required: ["code", "message"],
    properties: { code: { type: "string" }, path: { type: "string" }, message: { type: "string" } },
  },
};

/** The `Idempotency-Key` header every authenticated POST takes (docs/rest-api.md). */
const IDEMPOTENCY_KEY = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Runs the request once: a retry with the same key and parameters within 24 hours gets the first answer (Idempotent-Replayed: true); another request with the key is 409 idempotency_conflict",
  schema: { type: "string", minLength: 1, maxLength: 255 },
};

function errorResponses(route: Route): Record<string, unknown> {
  const statuses = ["400", "404", "413", "422", "500"];
  if (route.auth !== false) statuses.push("401", "429");
  if (route.auth === "operator") statuses.push("403");
  if (route.method === "DELETE" || (route.method === "POST" && route.auth !== false)) statuses.push("409");
  const out: Record<string, unknown> = {};
  for (const status of statuses.sort()) {
    out[status] = {
      description: `Error (${status})`,
      content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
    };
  }
  return out;
}

/** Builds the OpenAPI 3.1 document of the given routes. */
export function buildOpenApi(routes: Route[]): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
    const parameters: unknown[] = names.map((name) => ({
      name,
      in: "path",
      required: true,
      schema: { type: "string" },
    }));
    const params = route.params ? plain(route.params) : undefined;
    const properties = (params?.properties ?? {}) as Record<string, Record<string, unknown>>;
    const required = new Set((params?.required as string[] | undefined) ?? []);
    const body = route.method !== "GET" && route.method !== "DELETE";
    if (!body) {
      for (const [name, schema] of Object.entries(properties)) {
        parameters.push({ name, in: "query", required: required.has(name), schema });
      }
    }
    if (route.method === "POST" && route.auth !== false) parameters.push(IDEMPOTENCY_KEY);
    const data = route.data ? plain(route.data) : {};
    const success = route.produces
      ? { description: "A stream", content: { [route.produces]: { schema: { type: "string" } } } }
      : {
          description: "Success",
          content: {
            "application/json": {
              schema: route.list
                ? {
                    type: "object",
                    required: ["data", "page_info"],
                    properties: { data: { type: "array", items: data }, page_info: PageInfo },
                  }
                : {
                    type: "object",
                    required: ["data"],
                    properties: route.warnings ? { data, warnings: Warnings } : { data },
                  },
            },
          },
        };
    const operation: Record<string, unknown> = {
      operationId: `${route.method.toLowerCase()}${route.path
        .replace(/[{}]/g, "")
        .replace(/\/(\w)/g, (_m, c: string) => c.toUpperCase())
        .replace(/[^A-Za-z0-9]/g, "")}`,
      summary: route.summary,
      tags: [route.tag],
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(body && params
        ? {
            requestBody: {
              description:
                "The same fields are accepted in the query string (the SPEC's calls send them there)",
              required: false,
              content: { "application/json": { schema: params } },
            },
          }
        : {}),
      responses: { "200": success, ...errorResponses(route) },
      ...(route.auth === false ? { security: [] } : {}),
    };
    paths[route.path] ??= {};
    (paths[route.path] as Record<string, unknown>)[route.method.toLowerCase()] = operation;
  }
  paths["/http/{endpoint_id}"] = {
    post: {
      operationId: "httpInterface",
      summary: "Invoke an HTTP source (any method, any sub-path; no API key)",
      tags: ["HTTP interface"],
      security: [],
      parameters: [{ name: "endpoint_id", in: "path", required: true, schema: { type: "string" } }],
      responses: {
        "200": { description: '`{"success":true}`, or the source\'s own respond()' },
        "404": { description: "No active source at this endpoint" },
        "502": { description: "A customResponse source finished without respond()" },
      },
    },
  };
  paths["/v1/openapi.json"] = {
    get: {
      operationId: "openapi",
      summary: "This document",
      tags: ["Meta"],
      security: [],
      responses: {
        "200": {
          description: "The OpenAPI 3.1 document",
          content: { "application/json": { schema: { type: "object" } } },
        },
      },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Hookline REST API",
      version: "1.0.0",
      description:
        "Run components, deliver their events to webhooks. Auth: `Authorization: Bearer <api key>`.",
    },
    servers: [{ url: "/" }],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { Error: ErrorBody },
    },
    paths,
  };
}
