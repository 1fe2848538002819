/**
 * bench:workflow's workload, shared with bench:workflow-ab: an HTTP-triggered workflow of three
 * steps (a code step, an action that calls `$.export`, a code step that calls `$.respond`), the
 * request body it is sent, and the handler options both benches serve it with (no API or
 * per-endpoint rate limit: the load would hit them). It imports nothing of Hookline at run time, so
 * bench:workflow-ab can hand it the engine of any checkout.
 */
import type { Hookline } from "@hookline/engine";

// The three steps. The workflow runs them as component code in the sandbox; bench:workflow's
// baseline calls the same functions in plain JavaScript.
const TOTAL = `export default defineComponent({
  async run({ steps }) {
    const items = steps.trigger.event.body.items;
    return { count: items.length, total: items.reduce((n, i) => n + i.price * i.qty, 0) };
  },
});`;
const TAX = `export default {
  key: "bench-tax",
  name: "Tax",
  version: "0.1.0",
  type: "action",
  props: { total: { type: "integer" }, rate: { type: "integer" } },
  async run({ $ }) {
    const tax = Math.round(this.total * this.rate / 100);
    $.export("tax", tax);
    return { gross: this.total + tax };
  },
};`;
const RESPOND = `export default defineComponent({
  async run({ steps, $ }) {
    await $.respond({
      status: 200,
      headers: { "content-type": "application/json" },
      body: { count: steps.total.$return_value.count, tax: steps.tax.tax, gross: steps.tax.$return_value.gross },
    });
  },
});`;

/** The body each request sends (an order of three items). */
export const BODY = JSON.stringify({
  order: "o-1",
  items: [
    { sku: "a", price: 1250, qty: 2 },
    { sku: "b", price: 399, qty: 5 },
    { sku: "c", price: 10000, qty: 1 },
  ],
});

/** The options of `createHandler()` both benches serve the workflow with. */
export const BENCH_HANDLER_OPTIONS = { rateLimit: false, ingressRateLimit: false } as const;

/** The workflow, created in a new workspace `bench` of `hookline`: its ids and its endpoint's URL. */
export async function createBenchWorkflow(
  hookline: Pick<Hookline, "workspaces" | "workflows">,
): Promise<{ workspaceId: string; workflowId: string; url: string }> {
  const ws = await hookline.workspaces.create({ name: "bench" });
  const created = await hookline.workflows.create(ws.id, {
    name: "bench",
    trigger: { type: "http", custom_response: true },
    steps: [
      { name: "total", component_code: TOTAL },
      {
        name: "tax",
        component_code: TAX,
        configured_props: { total: "{{steps.total.$return_value.total}}", rate: 20 },
      },
      { name: "respond", component_code: RESPOND },
    ],
  });
  return { workspaceId: ws.id, workflowId: created.id, url: created.trigger.endpoint_url as string };
}
