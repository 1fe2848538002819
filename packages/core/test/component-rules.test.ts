// One valid and one invalid case per rule of SPEC.md's component object, user input prop, prop
// type, interface and app prop tables. Each invalid case asserts the exact problem codes and paths.
import { describeComponent, validateComponent } from "@hookline/core";
import { describe, expect, it } from "vitest";

const run = () => undefined;
const source = (extra: Record<string, unknown> = {}) => ({
  name: "My Source",
  version: "0.0.1",
  run,
  ...extra,
});
const action = (extra: Record<string, unknown> = {}) => ({
  name: "My Action",
  version: "0.0.1",
  type: "action",
  run,
  ...extra,
});
const withProp = (prop: unknown, base = source) => base({ props: { p: prop } });
const app = {
  type: "app",
  app: "github",
  propDefinitions: { repo: { type: "string", label: "Repository", options: () => [] } },
  methods: { token() {} },
};

type Case = [title: string, definition: unknown, expected: [code: string, path: string][]];

const componentTable: Case[] = [
  ["name: required (valid)", source(), []],
  ["name: required (missing)", { version: "1", run }, [["required", "name"]]],
  ["name: a string", source({ name: 42 }), [["invalid_type", "name"]]],
  ["key: a string (valid)", source({ key: "my-source" }), []],
  ["key: a string (invalid)", source({ key: ["x"] }), [["invalid_type", "key"]]],
  ["type: absent means source", source(), []],
  ["type: source", source({ type: "source" }), []],
  ["type: action", action(), []],
  ["type: anything else", source({ type: "trigger" }), [["invalid_value", "type"]]],
  ["version: required (missing)", { name: "x", run }, [["required", "version"]]],
  ["version: free form", source({ version: "latest-ish" }), []],
  ["description: a string (valid)", source({ description: "Shown in the UI" }), []],
  ["description: a string (invalid)", source({ description: 1 }), [["invalid_type", "description"]]],
  ["props: an object (valid)", source({ props: {} }), []],
  ["props: an object (invalid)", source({ props: [] }), [["invalid_type", "props"]]],
  ["methods: functions (valid)", source({ methods: { helper() {} } }), []],
  ["methods: functions (invalid)", source({ methods: { helper: 1 } }), [["invalid_type", "methods.helper"]]],
  ["hooks: on a source", source({ hooks: { deploy() {}, activate() {}, deactivate() {} } }), []],
  ["hooks: sources only", action({ hooks: { deploy() {} } }), [["source_only", "hooks"]]],
  ["hooks: known names only", source({ hooks: { start() {} } }), [["invalid_value", "hooks.start"]]],
  ["hooks: functions", source({ hooks: { deploy: "x" } }), [["invalid_type", "hooks.deploy"]]],
  ["dedupe: on a source", source({ dedupe: "greatest" }), []],
  ["dedupe: a known strategy", source({ dedupe: "first" }), [["invalid_value", "dedupe"]]],
  ["run: required in an action", { name: "x", version: "1", type: "action" }, [["required", "run"]]],
  ["run: a method", source({ run: "go" }), [["invalid_type", "run"]]],
  ["run: serialized marker", source({ run: { $fn: true } }), []],
  ["additionalProps: a method", source({ additionalProps: 3 }), [["invalid_type", "additionalProps"]]],
  ["not an object", "export default 1", [["invalid_type", ""]]],
];

const userInputTable: Case[] = [
  ["type: required", withProp({ label: "x" }), [["required", "props.p.type"]]],
  ["type: a known type", withProp({ type: "date" }), [["unknown_prop_type", "props.p.type"]]],
  ["type: string shorthand", withProp("$.service.db"), []],
  ["label: a string", withProp({ type: "string", label: 1 }), [["invalid_type", "props.p.label"]]],
  [
    "description: a string",
    withProp({ type: "string", description: {} }),
    [["invalid_type", "props.p.description"]],
  ],
  ["options: string[]", withProp({ type: "string", options: ["a", "b"] }), []],
  ["options: object[]", withProp({ type: "integer", options: [{ label: "One", value: 1 }] }), []],
  ["options: method", withProp({ type: "string", options() {} }), []],
  [
    "options: not an array",
    withProp({ type: "string", options: "a,b" }),
    [["invalid_type", "props.p.options"]],
  ],
  [
    "options: objects need a value",
    withProp({ type: "string", options: [{ label: "A" }] }),
    [["invalid_value", "props.p.options.0"]],
  ],
  [
    "useQuery: a boolean",
    withProp({ type: "string", options() {}, useQuery: "yes" }),
    [["invalid_type", "props.p.useQuery"]],
  ],
  ["optional: a boolean", withProp({ type: "string", optional: 1 }), [["invalid_type", "props.p.optional"]]],
  [
    "propDefinition: resolves",
    source({ props: { github: app, repo: { propDefinition: [app, "repo"] } } }),
    [],
  ],
  [
    "propDefinition: inputValues function",
    source({ props: { github: app, repo: { propDefinition: [app, "repo", (c: unknown) => ({ c })] } } }),
    [],
  ],
  [
    "propDefinition: an array",
    withProp({ propDefinition: "github.repo" }),
    [["invalid_prop_definition", "props.p.propDefinition"]],
  ],
  [
    "propDefinition: app object",
    withProp({ propDefinition: ["github", "repo"] }),
    [["invalid_prop_definition", "props.p.propDefinition.0"]],
  ],
  [
    "propDefinition: known name",
    withProp({ propDefinition: [app, "branch"] }),
    [["invalid_prop_definition", "props.p.propDefinition.1"]],
  ],
  [
    "propDefinition: inputValues object or function",
    withProp({ propDefinition: [app, "repo", 5] }),
    [["invalid_prop_definition", "props.p.propDefinition.2"]],
  ],
  ["default: on an optional prop", withProp({ type: "string", optional: true, default: "x" }), []],
  [
    "default: of the prop's type",
    withProp({ type: "integer", optional: true, default: "many" }),
    [["invalid_type", "props.p.default"]],
  ],
  ["secret: on a string prop", withProp({ type: "string", secret: true }), []],
  [
    "secret: only string props",
    withProp({ type: "integer", secret: true }),
    [["secret_not_string", "props.p.secret"]],
  ],
  [
    "secret: not on string[]",
    withProp({ type: "string[]", secret: true }),
    [["secret_not_string", "props.p.secret"]],
  ],
  ["min/max: on an integer prop", withProp({ type: "integer", min: 1, max: 10 }), []],
  ["min: integer props only", withProp({ type: "string", min: 1 }), [["min_max_not_integer", "props.p.min"]]],
  [
    "max: integer props only",
    withProp({ type: "boolean", max: 1 }),
    [["min_max_not_integer", "props.p.max"]],
  ],
  ["min: an integer", withProp({ type: "integer", min: 1.5 }), [["invalid_type", "props.p.min"]]],
  ["min <= max", withProp({ type: "integer", min: 5, max: 1 }), [["min_greater_than_max", "props.p.min"]]],
  [
    "reloadProps: a boolean",
    withProp({ type: "string", reloadProps: "true" }),
    [["invalid_type", "props.p.reloadProps"]],
  ],
];

// SPEC's prop type table: array form, in sources, in actions.
const typeRows: [type: string, array: boolean, sources: boolean, actions: boolean][] = [
  ["boolean", true, true, true],
  ["integer", true, true, true],
  ["string", true, true, true],
  ["object", false, true, true],
  ["any", false, false, true],
  ["$.interface.http", false, true, false],
  ["$.interface.timer", false, true, false],
];
// The types SPEC does not list but real components use.
typeRows.push(
  ["alert", false, true, true],
  ["http_request", false, false, true],
  ["data_store", false, true, true],
  ["dir", false, true, true],
  ["sql", false, true, true],
);
const propTypeTable: Case[] = typeRows.flatMap(([type, array, sources, actions]): Case[] => [
  [`${type} in a source`, withProp({ type }), sources ? [] : [["action_only", "props.p.type"]]],
  [`${type} in an action`, withProp({ type }, action), actions ? [] : [["source_only", "props.p.type"]]],
  [
    `${type}[] array form`,
    withProp({ type: `${type}[]` }, sources ? source : action),
    array ? [] : [["array_not_supported", "props.p.type"]],
  ],
]);
propTypeTable.push(
  ["app in a source", source({ props: { github: app } }), []],
  ["app in an action", action({ props: { github: app } }), []],
  ["app[] has no array form", withProp({ ...app, type: "app[]" }), [["array_not_supported", "props.p.type"]]],
);

const apphook = { type: "$.interface.apphook", appProp: "github", eventNames: ["star"] };
const interfaceTable: Case[] = [
  ["apphook", source({ props: { github: app, hook: apphook } }), []],
  ["apphook: eventNames method", withProp({ ...apphook, eventNames() {} }), []],
  ["apphook: sources only", action({ props: { hook: apphook } }), [["source_only", "props.hook.type"]]],
  ["apphook: appProp required", withProp({ type: "$.interface.apphook" }), [["required", "props.p.appProp"]]],
  [
    "apphook: eventNames strings",
    withProp({ ...apphook, eventNames: [1] }),
    [["invalid_type", "props.p.eventNames"]],
  ],
  [
    "http_request default is an object",
    withProp({ type: "http_request", optional: true, default: "GET /" }, action),
    [["invalid_type", "props.p.default"]],
  ],
  [
    "not an app-specific type",
    withProp({ type: "$.interface.ftp" }),
    [["unknown_prop_type", "props.p.type"]],
  ],
  [
    "timer default intervalSeconds",
    withProp({ type: "$.interface.timer", default: { intervalSeconds: 60 } }),
    [],
  ],
  ["timer default cron", withProp({ type: "$.interface.timer", default: { cron: "0 * * * *" } }), []],
  [
    "timer default shape",
    withProp({ type: "$.interface.timer", default: { every: "1h" } }),
    [["invalid_timer", "props.p.default"]],
  ],
  [
    "timer default cron parses",
    withProp({ type: "$.interface.timer", default: { cron: "not a cron" } }),
    [["invalid_timer", "props.p.default"]],
  ],
  ["http customResponse boolean", withProp({ type: "$.interface.http", customResponse: true }), []],
  [
    "http customResponse invalid",
    withProp({ type: "$.interface.http", customResponse: "yes" }),
    [["invalid_type", "props.p.customResponse"]],
  ],
  ["db service", withProp({ type: "$.service.db" }), []],
  [
    "db service has no array form",
    withProp({ type: "$.service.db[]" }),
    [["array_not_supported", "props.p.type"]],
  ],
  ["app: app slug required", withProp({ type: "app" }), [["required", "props.p.app"]]],
  ["app: app slug a string", withProp({ type: "app", app: 3 }), [["invalid_type", "props.p.app"]]],
  [
    "app: propDefinitions object",
    withProp({ type: "app", app: "x", propDefinitions: [] }),
    [["invalid_type", "props.p.propDefinitions"]],
  ],
  [
    "app: methods functions",
    withProp({ type: "app", app: "x", methods: { m: 1 } }),
    [["invalid_type", "props.p.methods.m"]],
  ],
];

const registryTable: Case[] = [
  [
    "registry: key and semver",
    source({ key: "github-my-source", version: "1.2.3", props: { github: app } }),
    [],
  ],
  ["registry: key required", source({ version: "1.0.0" }), [["required", "key"]]],
  [
    "registry: key pattern",
    source({ key: "my-source", version: "1.0.0", props: { github: app } }),
    [["invalid_registry_key", "key"]],
  ],
  [
    "registry: the key's app is one of the component's apps",
    source({ key: "gitlab-my-source", version: "1.0.0", props: { github: app } }),
    [["invalid_registry_key", "key"]],
  ],
  [
    "registry: a lower-case slug after the app",
    source({ key: "github-My_Source", version: "1.0.0", props: { github: app } }),
    [["invalid_registry_key", "key"]],
  ],
  [
    "registry: without an app prop, no prefix",
    source({ key: "mysource", version: "1.0.0" }),
    [["invalid_registry_key", "key"]],
  ],
  ["registry: without an app prop", source({ key: "http-my-source", version: "1.0.0" }), []],
  [
    "registry: semver",
    source({ key: "github-my-source", version: "v1", props: { github: app } }),
    [["invalid_version", "version"]],
  ],
  [
    "registry: prerelease semver",
    source({ key: "github-my-source", version: "1.0.0-beta.1", props: { github: app } }),
    [],
  ],
];

// SPEC rules real Pipedream components break: warnings, the component stays valid.
const warningTable: Case[] = [
  [
    "default on a required prop",
    withProp({ type: "string", default: "x" }),
    [["default_on_required", "props.p.default"]],
  ],
  [
    "default on a required prop built from a propDefinition",
    source({ props: { github: app, repo: { propDefinition: [app, "repo"], default: "hookline" } } }),
    [["default_on_required", "props.repo.default"]],
  ],
  ["a source without run", { name: "Daily", version: "0.0.1", props: {} }, [["required", "run"]]],
  [
    "an option object whose label is not a string",
    withProp({ type: "integer", options: [{ label: 1, value: 1 }, { value: 2 }] }),
    [
      ["invalid_value", "props.p.options.0"],
      ["invalid_value", "props.p.options.1"],
    ],
  ],
  [
    "an app-specific prop type",
    withProp({ type: "$.discord.channel" }),
    [["unknown_prop_type", "props.p.type"]],
  ],
  ["a db in an action", withProp({ type: "$.service.db" }, action), [["source_only", "props.p.type"]]],
  // Pipedream ignores an action's dedupe (issue 34: real actions declare it).
  ["dedupe in an action", action({ dedupe: "unique" }), [["source_only", "dedupe"]]],
  [
    "an app-specific array prop type",
    withProp({ type: "$.discord.channel[]", optional: true, default: ["general"] }),
    [["unknown_prop_type", "props.p.type"]],
  ],
];

describe.each([
  ["component object", componentTable, false],
  ["user input props", userInputTable, false],
  ["prop types", propTypeTable, false],
  ["interface and app props", interfaceTable, false],
  ["registry", registryTable, "public"],
] as const)("validateComponent: %s", (_table, cases, registry) => {
  it.each(cases)("%s", (_title, definition, expected) => {
    const { problems, warnings } = validateComponent(definition, { registry });
    expect(problems.map((p) => [p.code, p.path])).toEqual(expected);
    expect(warnings).toEqual([]);
    for (const p of problems) expect(p.message).toMatch(/\w/);
  });
});

describe("validateComponent: the private registry", () => {
  it("takes any valid key and a free-form version (SPEC: semantic versions are the public registry's)", () => {
    for (const version of ["free form", "1.0", "v2", "2026 spring"]) {
      const { problems } = validateComponent(source({ key: "my source", version }), { registry: "private" });
      expect(problems.map((p) => [p.code, p.path])).toEqual([["invalid_registry_key", "key"]]);
      expect(validateComponent(source({ key: "mine", version }), { registry: "private" }).problems).toEqual(
        [],
      );
    }
    expect(
      validateComponent(source({ key: "mine", version: "free form" }), { registry: "public" }).problems.map(
        (p) => p.code,
      ),
    ).toContain("invalid_version");
  });
});

describe("validateComponent: warnings", () => {
  it.each(warningTable)("%s", (_title, definition, expected) => {
    const { problems, warnings } = validateComponent(definition);
    expect(problems).toEqual([]);
    expect(warnings.map((p) => [p.code, p.path])).toEqual(expected);
    for (const p of warnings) expect(p.message).toMatch(/\w/);
    // strict: the same findings, as problems.
    const strict = validateComponent(definition, { strict: true });
    expect(strict.problems.map((p) => [p.code, p.path])).toEqual(expected);
    expect(strict.warnings).toEqual([]);
  });

  it("still checks a required prop's default against the type: an error next to the warning", () => {
    const { problems, warnings } = validateComponent(withProp({ type: "integer", default: "many" }));
    expect(problems.map((p) => [p.code, p.path])).toEqual([["invalid_type", "props.p.default"]]);
    expect(warnings.map((p) => [p.code, p.path])).toEqual([["default_on_required", "props.p.default"]]);
  });

  it("describes the types SPEC does not list with the value they take", () => {
    const { description } = describeComponent(
      action({
        props: {
          info: { type: "alert", alertType: "info", content: "Read **this**" },
          request: { type: "http_request", default: { method: "GET", url: "https://example.com" } },
          store: { type: "data_store" },
          files: { type: "dir", accessMode: "read", sync: true, optional: true },
          query: { type: "sql", auth: { app: "postgresql" } },
          channel: { type: "$.discord.channel[]", label: "Channels" },
        },
      }),
    );
    expect(description?.props).toEqual({
      info: { type: "alert", alertType: "info", content: "Read **this**", valueType: "none" },
      request: {
        type: "http_request",
        default: { method: "GET", url: "https://example.com" },
        valueType: "object",
      },
      store: { type: "data_store", valueType: "string" },
      files: { type: "dir", accessMode: "read", sync: true, optional: true, valueType: "none" },
      query: { type: "sql", auth: { app: "postgresql" }, valueType: "any" },
      channel: { type: "$.discord.channel[]", label: "Channels", valueType: "string" },
    });
    const hook = describeComponent(source({ props: { hook: { ...apphook, eventNames() {} } } }));
    expect(hook.description?.props.hook).toEqual({
      type: "$.interface.apphook",
      appProp: "github",
      dynamicEventNames: true,
      valueType: "none",
    });
  });

  it("describes a component with warnings, and lists them in the description", () => {
    const { description, warnings } = describeComponent(withProp({ type: "string", default: "x" }));
    expect(warnings).toHaveLength(1);
    expect(description?.warnings).toEqual(warnings);
    expect(description?.props.p).toEqual({ type: "string", default: "x" });
  });
});

describe("validateComponent", () => {
  it("returns every problem, not only the first", () => {
    const { problems } = validateComponent({
      type: "action",
      hooks: {},
      props: { a: { type: "any", secret: true } },
    });
    expect(problems.map((p) => p.code).sort()).toEqual([
      "required",
      "required",
      "required",
      "secret_not_string",
      "source_only",
    ]);
  });

  it("registry rules only apply when publishing", () => {
    expect(validateComponent(source({ version: "whatever" }))).toEqual({ problems: [], warnings: [] });
  });
});

describe("describeComponent", () => {
  it("describes a valid definition with propDefinitions resolved", () => {
    const { description, problems } = describeComponent(
      source({
        key: "github-my-source",
        dedupe: "unique",
        hooks: { deploy() {} },
        methods: { a() {} },
        additionalProps() {},
        props: {
          github: app,
          repo: { propDefinition: [app, "repo", () => ({})], optional: true },
          db: "$.service.db",
          timer: { type: "$.interface.timer", default: { intervalSeconds: 900 } },
        },
      }),
    );
    expect(problems).toEqual([]);
    expect(description).toEqual({
      type: "source",
      name: "My Source",
      key: "github-my-source",
      version: "0.0.1",
      dedupe: "unique",
      methods: ["a"],
      hooks: ["deploy"],
      hasAdditionalProps: true,
      props: {
        github: { type: "app", app: "github", label: "github" },
        repo: {
          type: "string",
          label: "Repository",
          optional: true,
          dynamicOptions: true,
          propDefinition: { appProp: "github", name: "repo", hasInputValues: true },
        },
        db: { type: "$.service.db" },
        timer: { type: "$.interface.timer", default: { intervalSeconds: 900 } },
      },
    });
    expect(JSON.parse(JSON.stringify(description))).toEqual(description);
  });

  it("returns problems and no description for an invalid definition", () => {
    const result = describeComponent({ name: "x" });
    expect(result.description).toBeUndefined();
    expect(result.problems.map((p) => p.path)).toEqual(["version"]);
    expect(result.warnings.map((p) => p.path)).toEqual(["run"]);
  });

  it("accepts the serialized form the runtime produces", () => {
    const serialized = JSON.parse(JSON.stringify({ ...source({ type: "action" }), run: { $fn: true } }));
    expect(describeComponent(serialized).description?.type).toBe("action");
  });
});
