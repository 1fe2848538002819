// Hookline essentials: continue the workflow only when a condition holds; otherwise end the run
// with $.flow.exit (later steps are skipped, the run is "exited", not failed).
export default {
  key: "helper_functions-filter",
  name: "Filter",
  description:
    "Continue only when the condition holds; otherwise end the run here (`$.flow.exit`) with the reason. Use `{{steps...}}` for the value.",
  version: "0.1.0",
  type: "action",
  props: {
    value: {
      type: "any",
      label: "Value",
      description: "What to test, such as `{{steps.trigger.event.body.total}}`.",
    },
    condition: {
      type: "string",
      label: "Condition",
      options: [
        { label: "equals", value: "equals" },
        { label: "does not equal", value: "not_equals" },
        { label: "contains (text or list)", value: "contains" },
        { label: "is greater than", value: "greater_than" },
        { label: "is less than", value: "less_than" },
        { label: "exists (not empty)", value: "exists" },
        { label: "does not exist (empty)", value: "not_exists" },
      ],
    },
    compareTo: {
      type: "any",
      label: "Compare to",
      description: "The other side of the condition (not needed for exists).",
      optional: true,
    },
  },
  async run({ $ }) {
    const v = this.value;
    const c = this.compareTo;
    const empty = v === undefined || v === null || v === "" || (Array.isArray(v) && v.length === 0);
    const tests = {
      equals: () => JSON.stringify(v) === JSON.stringify(c) || String(v) === String(c),
      not_equals: () => !(JSON.stringify(v) === JSON.stringify(c) || String(v) === String(c)),
      contains: () =>
        Array.isArray(v)
          ? v.some((x) => JSON.stringify(x) === JSON.stringify(c))
          : String(v ?? "").includes(String(c)),
      greater_than: () => Number(v) > Number(c),
      less_than: () => Number(v) < Number(c),
      exists: () => !empty,
      not_exists: () => empty,
    };
    const test = tests[this.condition];
    if (!test) throw new Error(`Unknown condition ${this.condition}`);
    const passed = test();
    $.export("$summary", passed ? "Condition met: continuing" : "Condition not met: ending the run");
    if (!passed)
      return $.flow.exit(`Filter: ${JSON.stringify(v)} ${this.condition} ${JSON.stringify(c)} is false`);
    return { passed: true };
  },
};
