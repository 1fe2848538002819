// A real registry action runs as a workflow step, unchanged: @pipedream/helper_functions'
// convert-currency (`axios($, ...)` to https://api.frankfurter.app, sent by the engine's transport
// to a loopback stand-in), published to the registry by key, reads an earlier code step's return
// value and export through `{{ }}` expressions, and its `$summary` shows in the execution.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { bundleComponent } from "@hookline/cli";
import { createTransport, type Transport } from "@hookline/delivery";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RestApi, startRestApi } from "./_api.js";

const seen: string[] = [];
let server: Server;
let base = "";
let api: RestApi;

/** The guarded transport, with https://api.frankfurter.app sent to the stand-in on loopback. */
function standInTransport(): Transport {
  const inner = createTransport({ allowPrivate: true });
  const rewrite = (input: string | URL | Request): string | URL | Request => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return url.startsWith("https://api.frankfurter.app/")
      ? url.replace("https://api.frankfurter.app", base)
      : input;
  };
  const fetch = ((input: string | URL | Request, init?: RequestInit) =>
    inner.fetch(rewrite(input), init)) as typeof globalThis.fetch;
  return { ...inner, fetch };
}

beforeAll(async () => {
  // Frankfurter's /latest, as much as the action reads: `rates[to]` for `amount` of `from`.
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://stand-in");
    seen.push(url.pathname + url.search);
    const amount = Number(url.searchParams.get("amount"));
    const to = url.searchParams.get("to") ?? "";
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ amount, base: url.searchParams.get("from"), rates: { [to]: amount * 2 } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  api = await startRestApi({ transport: standInTransport() });
});

afterAll(async () => {
  await api.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("a real @pipedream action as a workflow step", () => {
  it("helper_functions-convert-currency runs with props from an earlier step; its $summary shows", async () => {
    const file = fileURLToPath(
      new URL(
        "../../node_modules/@pipedream/helper_functions/actions/convert-currency/convert-currency.mjs",
        import.meta.url,
      ),
    );
    const bundled = await bundleComponent(file);
    const published = await api.call("POST", "/v1/components/registry", {
      component_code: bundled.code,
      filename: bundled.filename,
    });
    expect(published.status, published.text).toBe(200);

    const created = await api.call("POST", "/v1/workflows", {
      name: "convert",
      trigger: { type: "manual" },
      steps: [
        {
          name: "prep",
          component_code: `export default defineComponent({ async run({ steps, $ }) {
            $.export("amount", String(steps.trigger.event.amount));
            return { from: "EUR", to: steps.trigger.event.to };
          } })`,
        },
        {
          name: "convert",
          component_key: "helper_functions-convert-currency",
          configured_props: {
            fromCurrency: "{{steps.prep.$return_value.from}}",
            toCurrency: "{{steps.prep.$return_value.to}}",
            value: "{{steps.prep.amount}}",
          },
        },
      ],
    });
    expect(created.status, created.text).toBe(200);
    const run = await api.call("POST", `/v1/workflows/${created.body.data.id}/run`, {
      event: { amount: 10, to: "USD" },
    });
    expect(run.status).toBe(200);
    const exe = run.body.data;
    expect(exe.status, JSON.stringify(exe.steps)).toBe("succeeded");
    expect(seen).toEqual(["/latest?from=EUR&to=USD&amount=10"]);
    expect(exe.steps[1]).toMatchObject({
      name: "convert",
      status: "succeeded",
      summary: "10 EUR = 20 USD",
      return_value: { amount: 10, base: "EUR", rates: { USD: 20 } },
    });
  });
});
