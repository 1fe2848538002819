import { MAX_STATIC_PROP_BYTES, type PropDescription, validatePropValues } from "@hookline/core";
import { describe, expect, it } from "vitest";

const codes = (props: Record<string, PropDescription>, values: Record<string, unknown>) =>
  validatePropValues(props, values).problems.map((p) => [p.code, p.path]);

describe("validatePropValues", () => {
  it.each([
    ["string", "hi", "hi"],
    ["string", 5, "5"],
    ["integer", 5, 5],
    ["integer", "42", 42],
    ["boolean", true, true],
    ["boolean", "false", false],
    ["object", { a: 1 }, { a: 1 }],
    ["object", '{"a":1}', { a: 1 }],
    ["any", [1, "x"], [1, "x"]],
    ["string[]", ["a", "b"], ["a", "b"]],
    ["string[]", "a", ["a"]],
    ["integer[]", ["1", 2], [1, 2]],
    ["integer[]", "[1,2]", [1, 2]],
    ["boolean[]", [true, "false"], [true, false]],
  ])("coerces %s from %j", (type, given, expected) => {
    expect(validatePropValues({ p: { type } }, { p: given })).toEqual({
      values: { p: expected },
      problems: [],
    });
  });

  it.each([
    ["string", {}, "p"],
    ["integer", 1.5, "p"],
    ["integer", "ten", "p"],
    ["boolean", "yes", "p"],
    ["object", [1], "p"],
    ["object", "not json", "p"],
    ["integer[]", [1, "x"], "p.1"],
  ])("rejects a %s given %j", (type, given, path) => {
    expect(codes({ p: { type } }, { p: given })).toEqual([["invalid_type", path]]);
  });

  it("checks integer min and max, also in arrays", () => {
    const props = { n: { type: "integer", min: 1, max: 10 }, ns: { type: "integer[]", min: 0 } };
    expect(codes(props, { n: 0, ns: [1] })).toEqual([["below_min", "n"]]);
    expect(codes(props, { n: 11, ns: [1, -1] })).toEqual([
      ["above_max", "n"],
      ["below_min", "ns.1"],
    ]);
    expect(codes(props, { n: 10, ns: [0] })).toEqual([]);
  });

  it("checks membership in static options, plain or { label, value }", () => {
    const props = {
      color: { type: "string", options: ["red", "green"] },
      size: {
        type: "integer",
        options: [
          { label: "Small", value: 1 },
          { label: "Large", value: 2 },
        ],
      },
      tags: { type: "string[]", options: ["a", "b"] },
    };
    expect(codes(props, { color: "red", size: 2, tags: ["a"] })).toEqual([]);
    expect(codes(props, { color: "blue", size: "3", tags: ["a", "c"] })).toEqual([
      ["not_in_options", "color"],
      ["not_in_options", "size"],
      ["not_in_options", "tags.1"],
    ]);
  });

  it("does not check dynamic options here", () => {
    expect(codes({ p: { type: "string", dynamicOptions: true } }, { p: "anything" })).toEqual([]);
  });

  it("requires non-optional props and applies defaults to optional ones", () => {
    const props = {
      need: { type: "string", label: "Needed" },
      opt: { type: "integer", optional: true, default: 7 },
      none: { type: "string", optional: true },
    };
    const missing = validatePropValues(props, {});
    expect(missing.problems).toEqual([{ code: "required", path: "need", message: '"Needed" is required' }]);
    expect(validatePropValues(props, { need: "x" })).toEqual({ values: { need: "x", opt: 7 }, problems: [] });
    expect(codes(props, { need: "" })).toEqual([["required", "need"]]);
  });

  it("limits raw static text to 64KB but not step expressions", () => {
    const big = "x".repeat(MAX_STATIC_PROP_BYTES + 1);
    expect(codes({ p: { type: "string" } }, { p: big })).toEqual([["too_large", "p"]]);
    expect(codes({ p: { type: "string" } }, { p: "x".repeat(MAX_STATIC_PROP_BYTES) })).toEqual([]);
    expect(codes({ p: { type: "object" } }, { p: { text: big } })).toEqual([["too_large", "p"]]);
    const expression = "{{steps.trigger.event.body}}";
    expect(validatePropValues({ p: { type: "integer" } }, { p: expression })).toEqual({
      values: { p: expression },
      problems: [],
    });
  });

  it("counts bytes, not characters", () => {
    const emoji = "é".repeat(MAX_STATIC_PROP_BYTES / 2 + 1); // 2 bytes each in UTF-8
    expect(codes({ p: { type: "string" } }, { p: emoji })).toEqual([["too_large", "p"]]);
  });

  it("reports values for unknown props", () => {
    expect(codes({}, { ghost: 1 })).toEqual([["unknown_prop", "ghost"]]);
  });

  it("validates timers and falls back to their default", () => {
    const timer = { type: "$.interface.timer", default: { intervalSeconds: 900 } };
    expect(validatePropValues({ timer }, {}).values).toEqual({ timer: { intervalSeconds: 900 } });
    expect(validatePropValues({ timer }, { timer: { cron: "*/5 * * * *" } }).values).toEqual({
      timer: { cron: "*/5 * * * *" },
    });
    expect(codes({ timer }, { timer: { intervalSeconds: 0 } })).toEqual([["invalid_timer", "timer"]]);
    expect(codes({ timer: { type: "$.interface.timer" } }, {})).toEqual([["required", "timer"]]);
  });

  it("passes app values through and ignores http and db props", () => {
    const props = {
      github: { type: "app", app: "github" },
      http: { type: "$.interface.http" },
      db: { type: "$.service.db" },
    };
    expect(validatePropValues(props, { github: { authProvisionId: "apn_1" } })).toEqual({
      values: { github: { authProvisionId: "apn_1" } },
      problems: [],
    });
  });
});
