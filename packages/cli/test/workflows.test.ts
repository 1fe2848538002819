// `pd workflows`, `pd events p_...` and `pd logs p_...` through the built `pd` binary against a real
// server on loopback (the engine and the /v1 handler in this process, as the UI tests run it):
// a workflow file with a code file, an action reading an earlier step through an expression and
// exporting, a summary, an emit; run, executions, logs, a failing run, deactivate, update, delete.

import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { createHookline, type Hookline } from "@hookline/engine";
import { createHandler } from "@hookline/http";
import { toNodeListener } from "@hookline/http/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { baseEnv, pd, tempDir } from "./_helpers.js";

let server: Server;
let hookline: Hookline;
let env: NodeJS.ProcessEnv;
const cwd = tempDir("pd-wf-run-");

beforeAll(async () => {
  let listener: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  server = createServer((req, res) => listener?.(req, res));
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  hookline = createHookline({ secretsKey: "cli-workflows", baseUrl: base, allowPrivateUrls: true });
  await hookline.start();
  const ws = await hookline.workspaces.create({ name: "default" });
  const { key } = await hookline.apiKeys.create(ws.id);
  await hookline.env.set(ws.id, "GREETING", "Bonjour");
  listener = toNodeListener(createHandler(hookline, { rateLimit: false }));
  env = baseEnv({ HOOKLINE_API_KEY: key, HOOKLINE_BASE_URL: base, XDG_CONFIG_HOME: join(cwd, "config") });

  mkdirSync(join(cwd, "steps", "lib"), { recursive: true });
  writeFileSync(
    join(cwd, "steps", "lib", "sum.mjs"),
    "export const sum = (xs) => xs.reduce((n, x) => n + x, 0);\n",
  );
  writeFileSync(
    join(cwd, "steps", "total.mjs"),
    `import { sum } from "./lib/sum.mjs";
export default defineComponent({
  async run({ steps }) {
    console.log("adding " + steps.trigger.event.items.length + " items");
    return { total: sum(steps.trigger.event.items) };
  },
});
`,
  );
  writeFileSync(
    join(cwd, "orders.yaml"),
    `# an order workflow, as kept in git
name: Orders
trigger: { type: manual }
steps:
  - name: total
    code: ./steps/total.mjs
  - name: tax
    configured_props:
      total: "{{steps.total.$return_value.total}}"
      greeting: "{{process.env.GREETING}}, order {{steps.trigger.event.id}}"
    component_code: |
      export default {
        name: "Tax",
        version: "0.1.0",
        type: "action",
        props: { total: { type: "integer" }, greeting: { type: "string" } },
        async run({ $ }) {
          const tax = this.total / 5;
          $.export("tax", tax);
          $.export("$summary", this.greeting + ": tax " + tax);
          $.send.emit({ raw_event: { total: this.total, tax } });
          return { gross: this.total + tax };
        },
      };
`,
  );
  writeFileSync(
    join(cwd, "failing.json"),
    JSON.stringify({
      name: "Failing",
      trigger: { type: "manual" },
      retry: { count: 0 }, // fails on its first try (retries: packages/http/test/durable-runs.test.ts)
      steps: [
        {
          name: "boom",
          component_code: "export default defineComponent({ async run() { throw new Error('no stock'); } });",
        },
        { name: "never", component_code: "export default defineComponent({ async run() { return 1; } });" },
      ],
    }),
  );
  writeFileSync(
    join(cwd, "replayable.json"),
    JSON.stringify({
      name: "Replayable",
      trigger: { type: "manual" },
      retry: { count: 0 },
      steps: [
        {
          name: "load",
          component_code:
            "export default defineComponent({ async run({ steps }) { return { amount: steps.trigger.event.amount, r: Math.random() }; } });",
        },
        {
          name: "charge",
          component_code:
            "export default defineComponent({ async run({ steps }) { if (steps.trigger.event.fail) throw new Error('declined'); return steps.load.$return_value.amount * 2; } });",
        },
      ],
    }),
  );
  writeFileSync(join(cwd, "edited.json"), JSON.stringify({ amount: 7 }));
}, 60_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((ok) => server?.close(() => ok()));
  await hookline?.close();
});

const run = (args: string[]) => pd(args, { cwd, env });
const json = <T>(text: string): T => JSON.parse(text) as T;

interface Exe {
  id: string;
  status: string;
  steps: Array<{
    name: string;
    status: string;
    return_value?: unknown;
    exports?: Record<string, unknown>;
    summary?: string;
    logs?: Array<{ message: string }>;
    error?: { message: string };
  }>;
}

describe("pd workflows", () => {
  it("creates a workflow from a file, runs it, shows its runs, logs and events, updates, deactivates and deletes it", async () => {
    const created = await run(["workflows", "create", "orders.yaml"]);
    expect(created.stderr).toBe("");
    expect(created.code).toBe(0);
    const id = /\((p_[0-9A-Za-z]+)\)/.exec(created.stdout)?.[1] as string;
    expect(created.stdout).toContain("Created workflow Orders");
    expect(id).toMatch(/^p_/);

    const listed = json<Array<{ id: string; name: string }>>(
      (await run(["workflows", "list", "--json"])).stdout,
    );
    expect(listed.map((w) => w.id)).toContain(id);
    expect((await run(["list", "workflows"])).stdout).toMatch(new RegExp(`${id}\\s+Orders\\s+true`));

    // A run, by name: each step printed with its return value, export and summary.
    const ran = await run(["workflows", "run", "Orders", "--event", '{"id":"o-1","items":[1000,1500]}']);
    expect(ran.stderr).toBe("");
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/exe_\S+ succeeded/);
    expect(ran.stdout).toContain('return: {"total":2500}');
    expect(ran.stdout).toContain("tax succeeded");
    expect(ran.stdout).toContain("Bonjour, order o-1: tax 500");
    expect(ran.stdout).toContain("export tax: 500");
    expect(ran.stdout).toContain('return: {"gross":3000}');
    expect(ran.stdout).toContain("adding 2 items");

    const exe = json<Exe>(
      (await run(["workflows", "run", id, "--event", '{"id":"o-2","items":[5]}', "--json"])).stdout,
    );
    expect(exe.status).toBe("succeeded");
    expect(exe.steps.map((s) => [s.name, s.status])).toEqual([
      ["total", "succeeded"],
      ["tax", "succeeded"],
    ]);
    expect(exe.steps[1]?.exports?.tax).toBe(1);
    expect(exe.steps[1]?.summary).toBe("Bonjour, order o-2: tax 1");

    const executions = json<Exe[]>((await run(["workflows", "executions", "Orders", "--json"])).stdout);
    expect(executions.map((e) => e.id)).toEqual([exe.id, expect.stringMatching(/^exe_/)]);
    const table = await run(["workflows", "executions", "Orders"]);
    expect(table.stdout).toContain("total:succeeded tax:succeeded");

    // The steps of one execution (default the newest), and the workflow's log lines.
    const steps = await run(["workflows", "logs", "Orders"]);
    expect(steps.stdout).toContain(exe.id);
    expect(steps.stdout).toContain("adding 1 items");
    const older = executions[1]?.id as string;
    expect((await run(["workflows", "logs", "Orders", older])).stdout).toContain("adding 2 items");
    const logs = await run(["logs", id]);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain(`${older} total: adding 2 items`);
    expect(logs.stdout).toContain(`${exe.id} total: adding 1 items`);
    expect(logs.stdout.indexOf("adding 2 items")).toBeLessThan(logs.stdout.indexOf("adding 1 items"));

    // What it emitted with $.send.emit.
    const events = json<Array<{ event: unknown }>>((await run(["events", id, "--json"])).stdout);
    expect(events.map((e) => e.event)).toEqual([
      { total: 5, tax: 1 },
      { total: 2500, tax: 500 },
    ]);

    // Deactivate and activate.
    expect((await run(["workflows", "deactivate", "Orders"])).stdout).toContain("is inactive");
    expect(json<{ active: boolean }>((await run(["workflows", "get", id, "--json"])).stdout).active).toBe(
      false,
    );
    expect((await run(["workflows", "activate", id])).stdout).toContain("is active");

    // Update from an edited file: the same id, the new steps.
    writeFileSync(
      join(cwd, "orders-v2.yaml"),
      "name: Orders\ntrigger: {type: manual}\nsteps:\n  - name: total\n    code: ./steps/total.mjs\n",
    );
    const updated = await run(["workflows", "update", "Orders", "orders-v2.yaml", "--json"]);
    expect(updated.code).toBe(0);
    expect(json<{ id: string; steps: unknown[] }>(updated.stdout)).toMatchObject({
      id,
      steps: [{ name: "total" }],
    });
    expect((await run(["workflows", "get", "Orders"])).stdout).toContain("1. total");

    expect((await run(["workflows", "delete", "Orders"])).code).toBe(0);
    const gone = await run(["workflows", "get", id]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("not_found");
  }, 120_000);

  it("a failing run exits 1 naming the step; later steps are skipped", async () => {
    expect((await run(["workflows", "create", "failing.json"])).code).toBe(0);
    const failed = await run(["workflows", "run", "Failing"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("run_failed: step boom: Error: no stock");
    expect(failed.stdout).toContain("boom failed");
    expect(failed.stdout).toContain("never skipped");
    // With a retry policy the run waits for its next try.
    writeFileSync(
      join(cwd, "retrying.json"),
      JSON.stringify({
        name: "Retrying",
        trigger: { type: "manual" },
        retry: { count: 2, initial_ms: 60_000, jitter: 0 },
        steps: [
          {
            name: "flaky",
            component_code: "export default defineComponent({ async run() { throw new Error('busy'); } });",
          },
        ],
      }),
    );
    expect((await run(["workflows", "create", "retrying.json"])).code).toBe(0);
    const retrying = await run(["workflows", "run", "Retrying"]);
    expect(retrying.code).toBe(0);
    expect(retrying.stdout).toContain("queued");
    expect(retrying.stdout).toMatch(/next try at \d{4}-/);
    expect(retrying.stdout).toContain("flaky pending");
    // A step's error names the user's file and line, without the sandbox's frames.
    writeFileSync(
      join(cwd, "steps", "check.mjs"),
      "export default defineComponent({\n  async run({ steps }) {\n    return steps.trigger.event.items.length;\n  },\n});\n",
    );
    writeFileSync(
      join(cwd, "checked.yaml"),
      "name: Checked\ntrigger: {type: manual}\nretry: {count: 0}\nsteps:\n  - name: check\n    code: ./steps/check.mjs\n",
    );
    expect((await run(["workflows", "create", "checked.yaml"])).code).toBe(0);
    expect((await run(["workflows", "run", "Checked"])).code).toBe(1);
    const logs = await run(["workflows", "logs", "Checked"]);
    expect(logs.stdout).toMatch(
      /TypeError: cannot read property 'length' of undefined\n\s+at run \(check\.mjs:3:\d+\)\n/,
    );
    expect(logs.stdout).not.toMatch(/hookline:|\(native\)|step\.mjs/);
    const unknown = await run(["workflows", "run", "No such workflow"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("not_found: No workflow No such workflow");
  }, 60_000);

  it("replays a failed run from a step with an edited event; a bad step is a 422 naming from_step", async () => {
    expect((await run(["workflows", "create", "replayable.json"])).code).toBe(0);
    const failed = await run([
      "workflows",
      "run",
      "Replayable",
      "--event",
      '{"amount":3,"fail":true}',
      "--json",
    ]);
    expect(failed.code).toBe(1);
    const original = json<Exe>(failed.stdout);
    const replayed = await run([
      ...["workflows", "replay", "Replayable", original.id],
      ...["--from-step", "charge", "--event", '{"amount":5}', "--json"],
    ]);
    expect(replayed.stderr).toBe("");
    expect(replayed.code).toBe(0);
    const exe = json<Exe & { replay_of: string; steps: Array<{ replayed_from: string | null }> }>(
      replayed.stdout,
    );
    expect(exe).toMatchObject({ status: "succeeded", replay_of: original.id });
    // load kept its record (amount 3), charge ran with the edited event's steps.
    expect(exe.steps[0]).toMatchObject({
      replayed_from: original.id,
      return_value: original.steps[0]?.return_value,
    });
    expect(exe.steps[1]).toMatchObject({ status: "succeeded", return_value: 6 });

    const fromFile = await run([
      "workflows",
      "replay",
      "Replayable",
      original.id,
      "--event-file",
      "edited.json",
    ]);
    expect(fromFile.code).toBe(0);
    expect(fromFile.stdout).toContain(`replay of ${original.id}`);
    expect(fromFile.stdout).toMatch(/exe_\S+ succeeded/);
    expect(fromFile.stdout).toContain("return: 14");

    const again = await run(["workflows", "replay", "Replayable", original.id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("run_failed: step charge: Error: declined");

    const bad = await run(["workflows", "replay", "Replayable", original.id, "--from-step", "nope"]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("validation_failed");
    expect(bad.stderr).toContain("from_step");
  }, 60_000);
});
