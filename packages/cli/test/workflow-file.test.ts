// The workflow file format (YAML or JSON), read the way `pd workflows create` reads it; its
// mistakes reported by the `pd` binary before any request.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CliError } from "../src/_output.js";
import { loadWorkflowFile } from "../src/_workflow-file.js";
import { baseEnv, closedPort, pd, tempDir } from "./_helpers.js";

const dir = tempDir("pd-wf-");
mkdirSync(join(dir, "steps", "lib"), { recursive: true });
writeFileSync(join(dir, "steps", "lib", "shout.mjs"), "export const shout = (s) => s.toUpperCase() + '!';\n");
writeFileSync(
  join(dir, "steps", "greet.mjs"),
  `import { shout } from "./lib/shout.mjs";
export default defineComponent({
  async run({ steps }) {
    return shout("hello " + steps.trigger.event.name);
  },
});
`,
);

describe("the workflow file", () => {
  it("reads YAML: code files relative to it bundled with their imports, inline code and registry steps as written", async () => {
    const file = join(dir, "orders.yaml");
    writeFileSync(
      file,
      `# kept in git next to its steps
name: Orders
trigger:
  type: http
  custom_response: true
steps:
  - name: greet
    code: ./steps/greet.mjs
  - name: post
    component_key: http-send-request
    configured_props:
      url: "{{process.env.ORDERS_URL}}"
      body: "{{steps.greet.$return_value}}"
      retries: 3
  - name: respond
    component_code: |
      export default defineComponent({
        async run({ steps, $ }) {
          await $.respond({ status: 201, body: steps.greet.$return_value });
        },
      });
active: false
`,
    );
    const body = await loadWorkflowFile(file);
    expect(body.name).toBe("Orders");
    expect(body.trigger).toEqual({ type: "http", custom_response: true });
    expect(body.active).toBe(false);
    expect(body.steps.map((s) => s.name)).toEqual(["greet", "post", "respond"]);
    const greet = body.steps[0]?.component_code ?? "";
    // The relative import is bundled in: the server gets one file.
    expect(greet).toContain("toUpperCase");
    expect(greet).not.toContain("./lib/shout.mjs");
    expect(body.steps[0]).not.toHaveProperty("code");
    expect(body.steps[1]).toEqual({
      name: "post",
      component_key: "http-send-request",
      configured_props: {
        url: "{{process.env.ORDERS_URL}}",
        body: "{{steps.greet.$return_value}}",
        retries: 3,
      },
    });
    expect(body.steps[2]?.component_code).toContain("$.respond({ status: 201");
  });

  it("reads JSON the same way", async () => {
    const file = join(dir, "daily.json");
    writeFileSync(
      file,
      JSON.stringify({
        name: "Daily",
        trigger: { type: "timer", cron: "0 9 * * *", timezone: "Europe/Paris" },
        steps: [{ name: "greet", code: "steps/greet.mjs" }],
      }),
    );
    const body = await loadWorkflowFile(file);
    expect(body.trigger).toEqual({ type: "timer", cron: "0 9 * * *", timezone: "Europe/Paris" });
    expect(body.steps[0]?.component_code).toContain("toUpperCase");
    expect(body).not.toHaveProperty("active");
  });

  it("passes the run settings on as written (retry, concurrency, throttle, queue_size; a step's retry)", async () => {
    const file = join(dir, "durable.yaml");
    writeFileSync(
      file,
      `name: Durable
trigger: { type: manual }
retry: { count: 3, initial_ms: 1000 }
concurrency: { max: 2 }
throttle: { limit: 10, interval_ms: 60000 }
queue_size: 100
steps:
  - name: charge
    retry: { count: 0 }
    component_key: stripe-charge
`,
    );
    const body = await loadWorkflowFile(file);
    expect(body).toMatchObject({
      retry: { count: 3, initial_ms: 1000 },
      concurrency: { max: 2 },
      throttle: { limit: 10, interval_ms: 60000 },
      queue_size: 100,
      steps: [{ name: "charge", retry: { count: 0 }, component_key: "stripe-charge" }],
    });
  });

  it("names each wrong field", async () => {
    const file = join(dir, "bad.yaml");
    writeFileSync(
      file,
      `name: Bad
trigger: http
steps:
  - name: one
    cod: ./steps/greet.mjs
  - name: two
    component_key: a
    component_id: sc_1
  - name: three
    component_key: b
    configured_props: [1, 2]
`,
    );
    const error = await loadWorkflowFile(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).code).toBe("invalid_workflow_file");
    const paths = ((error as CliError).details as { problems: Array<{ path: string }> }).problems.map(
      (p) => p.path,
    );
    expect(paths).toEqual(["trigger", "steps[0].cod", "steps[0]", "steps[1]", "steps[2].configured_props"]);
  });

  it("reports YAML syntax errors and missing code files", async () => {
    writeFileSync(join(dir, "syntax.yaml"), "name: [unclosed\n");
    await expect(loadWorkflowFile(join(dir, "syntax.yaml"))).rejects.toMatchObject({
      code: "invalid_workflow_file",
    });
    writeFileSync(
      join(dir, "missing.yaml"),
      "name: M\ntrigger: {type: manual}\nsteps:\n  - {name: a, code: ./nope.mjs}\n",
    );
    await expect(loadWorkflowFile(join(dir, "missing.yaml"))).rejects.toMatchObject({
      code: "file_not_found",
    });
  });

  it("pd workflows create prints the file's problems and exits 1 before calling the server", async () => {
    const env = baseEnv({
      HOOKLINE_API_KEY: "hl_unused",
      HOOKLINE_BASE_URL: `http://127.0.0.1:${await closedPort()}`,
      XDG_CONFIG_HOME: join(dir, "config"),
    });
    const result = await pd(["workflows", "create", "bad.yaml"], { cwd: dir, env });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("invalid_workflow_file: bad.yaml: 5 problems");
    expect(result.stderr).toContain("  - steps[0].cod: unknown field");
    const unknown = await pd(["workflows", "start", "x"], { cwd: dir, env });
    expect(unknown.stderr).toContain('usage: unknown action "start"');
  }, 60_000);
});
