import {
  type ActionDefinition,
  defineAction,
  defineApp,
  defineSource,
  validateComponent,
} from "@hookline/core";
import { describe, expect, expectTypeOf, it } from "vitest";

// A component written the way Pipedream's docs and registry write them: it must type-check as is.
const github = defineApp({
  type: "app",
  app: "github",
  propDefinitions: {
    repoFullname: {
      type: "string",
      label: "Repository",
      async options({ page }) {
        return this.listRepos(page);
      },
    },
  },
  methods: {
    listRepos(page: number) {
      return [`repo-${page}`, this.$auth.oauth_access_token];
    },
  },
});

const source = defineSource({
  key: "github-new-star",
  name: "New Star",
  version: "0.0.1",
  dedupe: "unique",
  props: {
    github,
    repo: { propDefinition: [github, "repoFullname"] },
    db: "$.service.db",
    timer: { type: "$.interface.timer", default: { intervalSeconds: 900 } },
    http: { type: "$.interface.http", customResponse: true },
    limit: { type: "integer", min: 1, max: 100, optional: true, default: 10 },
  },
  hooks: {
    async deploy() {
      this.db.set("cursor", 0);
    },
  },
  methods: {
    summary(star: { id: number }) {
      return `Star ${star.id}`;
    },
  },
  async run(event) {
    const cursor = (await this.db.get("cursor")) ?? 0;
    this.$emit(event, { id: cursor, summary: this.summary({ id: 1 }), ts: Date.now() });
    this.http.respond({ status: 200, body: "ok" });
  },
});

const action = defineAction({
  key: "github-star",
  name: "Star",
  version: "0.1.0",
  type: "action",
  props: { github, anything: { type: "any" } },
  async run({ $, steps }) {
    $.export("$summary", `Starred ${steps.trigger.event.repo}`);
    if (!this.anything) return $.flow.exit("nothing to do");
    return this.github.listRepos(0);
  },
});

describe("define helpers", () => {
  it("return their argument unchanged", () => {
    expect(defineSource(source)).toBe(source);
    expect(defineAction(action)).toBe(action);
    expect(defineApp(github)).toBe(github);
  });

  it("keep literal types", () => {
    expectTypeOf(action.type).toEqualTypeOf<"action">();
    expectTypeOf(source.dedupe).toEqualTypeOf<"unique">();
    expectTypeOf(action).toMatchTypeOf<ActionDefinition>();
  });

  it("produce definitions that validate", () => {
    expect(validateComponent(source, { registry: true })).toEqual({ problems: [], warnings: [] });
    expect(validateComponent(action, { registry: true })).toEqual({ problems: [], warnings: [] });
  });
});
