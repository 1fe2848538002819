import { envNamesOf, hasTemplate, parseTemplate, validateWorkflow } from "@hookline/core";
import { describe, expect, it } from "vitest";

describe("parseTemplate", () => {
  it("splits text and expressions; one whole expression keeps its type", () => {
    expect(parseTemplate("{{steps.a.$return_value}}")).toEqual({
      parts: [{ code: "steps.a.$return_value" }],
      whole: true,
    });
    expect(parseTemplate("  {{ x }} ")).toMatchObject({ whole: true });
    expect(parseTemplate("id: {{ a }}-{{b}}")).toEqual({
      parts: ["id: ", { code: "a" }, "-", { code: "b" }],
      whole: false,
    });
    expect(parseTemplate("plain")).toEqual({ parts: ["plain"], whole: false });
  });

  it("follows braces and quotes inside an expression", () => {
    expect(parseTemplate("{{ {a: {b: 1}}.a.b }}").parts).toEqual([{ code: "{a: {b: 1}}.a.b" }]);
    expect(parseTemplate('{{ "}}" + x }}').parts).toEqual([{ code: '"}}" + x' }]);
  });

  it("reports an unclosed or empty expression", () => {
    expect(parseTemplate("a {{ b").error).toContain("never closed");
    expect(parseTemplate("{{  }}").error).toContain("empty");
    expect(hasTemplate("a {{b}}")).toBe(true);
    expect(hasTemplate("a {b}")).toBe(false);
  });

  it("finds the environment variables an expression reads", () => {
    expect(envNamesOf("process.env.A + process.env['B'] + process.env[\"C\"] + steps.env.D")).toEqual([
      "A",
      "B",
      "C",
    ]);
  });
});

describe("validateWorkflow", () => {
  const ok = { name: "w", trigger: { type: "manual" }, steps: [{ name: "a", component_code: "x" }] };
  it("accepts a valid definition and each trigger kind", () => {
    expect(validateWorkflow(ok)).toEqual([]);
    for (const trigger of [
      { type: "http", custom_response: true },
      { type: "timer", intervalSeconds: 60 },
      { type: "timer", cron: "0 9 * * *", timezone: "Europe/Paris" },
      { type: "source", source_id: "dc_x", event_name: "orders" },
    ]) {
      expect(validateWorkflow({ ...ok, trigger })).toEqual([]);
    }
  });

  it("refuses the names every object inherits as fields of a retry policy, limits, a trigger or a step", () => {
    const inherited = JSON.parse('{"toString":1,"constructor":{},"__proto__":{"count":1}}');
    const paths = validateWorkflow({
      ...ok,
      trigger: { type: "manual", ...inherited },
      retry: inherited,
      concurrency: { max: 1, ...inherited },
      steps: [{ name: "a", component_code: "x", retry: inherited }],
    }).map((p) => p.path);
    for (const at of ["trigger", "retry", "concurrency", "steps[0].retry"]) {
      for (const name of ["toString", "constructor", "__proto__"]) expect(paths).toContain(`${at}.${name}`);
    }
  });

  it("names each problem's field", () => {
    const problems = validateWorkflow({
      name: "",
      trigger: { type: "source" },
      steps: [
        { name: "a", component_code: "x", component_id: "sc_1" },
        { name: "a", component_code: "x" },
        { name: "trigger", component_code: "x" },
        { name: "b-c" },
      ],
    });
    expect(problems.map((p) => `${p.path} ${p.code}`)).toEqual([
      "name required",
      "trigger.source_id invalid_trigger",
      "steps[0] invalid_value",
      "steps[1].name duplicate_step_name",
      "steps[2].name reserved_step_name",
      "steps[3].name invalid_step_name",
      "steps[3] required",
    ]);
    expect(validateWorkflow({ ...ok, steps: [] })[0]).toMatchObject({ path: "steps", code: "required" });
    expect(validateWorkflow({ ...ok, trigger: { type: "timer", intervalSeconds: 0 } })[0]).toMatchObject({
      code: "invalid_timer",
    });
  });
});
