// The component registry through the engine's public API: publish privately and publicly, the key
// and semantic-version rules, deploy by key (newest and pinned), and what other workspaces see.
import { createMemoryStore, StoreError } from "@hookline/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHookline, parseComponentKey } from "../src/index.js";

const store = createMemoryStore();
const hookline = createHookline({ store, secretsKey: "registry-test-key", worker: false });
let acme: string;
let globex: string;
let initech: string;
beforeAll(async () => {
  acme = (await hookline.workspaces.create({ name: "acme" })).id;
  globex = (await hookline.workspaces.create({ name: "globex" })).id;
  initech = (await hookline.workspaces.create({ name: "initech" })).id;
});
afterAll(() => hookline.close());

/** A source with the http app (needs no account), of the given key, name and version. */
const source = (version: string, { key = "http-ping", name = "Ping", tag = version } = {}) => ({
  code: `export default {
    key: ${JSON.stringify(key)}, name: ${JSON.stringify(name)}, version: ${JSON.stringify(version)},
    props: { http: { type: "app", app: "http" }, label: { type: "string", optional: true, default: "ping" } },
    run() { this.$emit({ version: ${JSON.stringify(tag)}, label: this.label }); },
  };`,
  filename: "ping.mjs",
});

describe("publishing", () => {
  it("publishes privately by default: key, version and visibility; other workspaces see nothing", async () => {
    const published = await hookline.registry.publish(acme, { code: source("1.0.0") });
    expect(published).toMatchObject({
      id: expect.stringMatching(/^sc_/),
      workspaceId: acme,
      key: "http-ping",
      version: "1.0.0",
      visibility: "private",
      codeHash: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    expect((await hookline.registry.list(acme)).map((c) => c.id)).toEqual([published.id]);
    expect(await hookline.registry.get(acme, "http-ping")).toMatchObject({ id: published.id });

    // Another workspace: not listed, not readable, not deployable, not found by key.
    expect(await hookline.registry.list(globex)).toEqual([]);
    for (const call of [
      () => hookline.registry.get(globex, "http-ping"),
      () => hookline.registry.get(globex, "http-ping", "1.0.0"),
      () => hookline.components.get(globex, "http-ping"),
      () => hookline.components.get(globex, published.id),
      () => hookline.sources.deploy(globex, { componentKey: "http-ping" }),
      () => hookline.sources.deploy(globex, { componentId: published.id }),
    ]) {
      await expect(call()).rejects.toMatchObject({ code: "not_found", status: 404 });
    }
  });

  it("publishes publicly: every workspace lists, reads and deploys it", async () => {
    const published = await hookline.registry.publish(acme, {
      code: source("1.0.0", { key: "http-pong", name: "Pong" }),
      visibility: "public",
    });
    expect(published.visibility).toBe("public");
    expect((await hookline.registry.list(globex)).map((c) => [c.key, c.version, c.visibility])).toEqual([
      ["http-pong", "1.0.0", "public"],
    ]);
    expect(await hookline.registry.get(globex, "http-pong")).toMatchObject({ id: published.id });
    expect(await hookline.components.get(globex, "http-pong@1.0.0")).toMatchObject({ id: published.id });

    const deployed = await hookline.sources.deploy(globex, { componentKey: "http-pong" });
    // Deployed from a copy in globex's own workspace, so it does not depend on acme.
    expect(deployed.componentId).not.toBe(published.id);
    expect((await hookline.components.get(globex, deployed.componentId)).codeHash).toBe(published.codeHash);
    expect((await hookline.sources.run(globex, deployed.id)).emitted[0]?.body).toEqual({
      version: "1.0.0",
      label: "ping",
    });
    // A second deploy of the same version reuses that copy instead of saving another.
    const again = await hookline.sources.deploy(globex, { componentKey: "http-pong@1.0.0", name: "pong-2" });
    expect(again.componentId).toBe(deployed.componentId);
  });

  it("publishes a saved component by id", async () => {
    const saved = await hookline.components.save(acme, source("0.3.0", { key: "http-saved", name: "Saved" }));
    expect(saved.visibility).toBeUndefined();
    expect(await hookline.registry.list(acme)).not.toContainEqual(
      expect.objectContaining({ key: "http-saved" }),
    );
    const published = await hookline.registry.publish(acme, { componentId: saved.id });
    expect(published).toMatchObject({ key: "http-saved", version: "0.3.0", visibility: "private" });
    expect(published.id).not.toBe(saved.id);
    expect(published.codeHash).toBe(saved.codeHash);
    await expect(hookline.registry.publish(globex, { componentId: saved.id })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("private publishing takes any valid key and a free-form version; the public registry a semantic one", async () => {
    // Real keys such as formatting-format-number ("[Numbers] Format Number") publish privately.
    const own = await hookline.registry.publish(acme, {
      code: source("1.0.0", { key: "formatting-format-number", name: "[Numbers] Format Number" }),
    });
    expect(own).toMatchObject({ key: "formatting-format-number", visibility: "private" });
    expect(own.description.warnings).toBeUndefined();
    const cases: [string, string, string][] = [
      // [code, expected error code, problem path]
      [source("1.0.0", { key: "my key" }).code, "invalid_registry_key", "key"],
      [source("1.0.0", { key: "http@ping" }).code, "invalid_registry_key", "key"],
      [
        `export default { name: "No Key", version: "1.0.0", props: { http: { type: "app", app: "http" } }, run() {} };`,
        "invalid_registry_key",
        "key",
      ],
    ];
    for (const [code, errorCode, path] of cases) {
      await expect(hookline.registry.publish(acme, { code: { code } })).rejects.toMatchObject({
        code: errorCode,
        status: 422,
        details: { problems: [expect.objectContaining({ code: expect.any(String), path })] },
      });
    }
    // SPEC: a free-form version, semantic only for the (public) registry.
    for (const version of ["1.0", "v1.0.0", "latest", "free form"]) {
      const privately = await hookline.registry.publish(acme, {
        code: source(version, { key: "http-free" }),
      });
      expect(privately).toMatchObject({ key: "http-free", version, visibility: "private" });
      await expect(
        hookline.registry.publish(acme, {
          code: source(version, { key: "http-ping" }),
          visibility: "public",
        }),
      ).rejects.toMatchObject({
        code: "invalid_version",
        status: 422,
        details: { problems: [expect.objectContaining({ code: "invalid_version", path: "version" })] },
      });
    }
    expect((await hookline.registry.get(acme, "http-free@free form")).version).toBe("free form");
  });

  it("public publishing needs <app_slug>-<slug>; another slug than the name's is a warning, refused when strict", async () => {
    for (const key of ["github-ping", "ping", "http-Ping"]) {
      await expect(
        hookline.registry.publish(acme, { code: source("1.0.0", { key }), visibility: "public" }),
      ).rejects.toMatchObject({
        code: "invalid_registry_key",
        status: 422,
        details: { problems: [expect.objectContaining({ code: "invalid_registry_key", path: "key" })] },
      });
    }
    const code = source("1.0.0", { key: "http-format-number", name: "[Numbers] Format Number" });
    await expect(
      hookline.registry.publish(acme, { code, visibility: "public", strict: true }),
    ).rejects.toMatchObject({
      code: "invalid_registry_key",
      details: { problems: [expect.objectContaining({ code: "invalid_registry_key", path: "key" })] },
    });
    const published = await hookline.registry.publish(acme, { code, visibility: "public" });
    expect(published).toMatchObject({ key: "http-format-number", visibility: "public" });
    expect(published.description.warnings).toEqual([
      expect.objectContaining({
        code: "invalid_registry_key",
        path: "key",
        message: expect.stringContaining("http-numbers-format-number"),
      }),
    ]);

    // Both wrong: the key is reported first, and every problem is listed.
    const both = await hookline.registry
      .publish(acme, { code: source("1.0", { key: "nope" }), visibility: "public" })
      .catch((e: unknown) => e);
    expect(both).toMatchObject({ code: "invalid_registry_key" });
    expect(
      (both as { details: { problems: { code: string }[] } }).details.problems.map((p) => p.code).sort(),
    ).toEqual(["invalid_registry_key", "invalid_version"]);
  });

  it("strict refuses every warning of the component, with invalid_component", async () => {
    const lenient = `export default { key: "http-lenient", name: "Lenient", version: "1.0.0",
      props: { n: { type: "integer", default: 5 } }, run() {} };`;
    await expect(
      hookline.registry.publish(acme, { code: { code: lenient }, visibility: "public", strict: true }),
    ).rejects.toMatchObject({
      code: "invalid_component",
      status: 422,
      details: {
        problems: [expect.objectContaining({ code: "default_on_required", path: "props.n.default" })],
      },
    });
    await expect(hookline.components.save(acme, { code: lenient }, { strict: true })).rejects.toMatchObject({
      code: "invalid_component",
      details: { problems: [expect.objectContaining({ code: "default_on_required" })] },
    });
    const saved = await hookline.components.save(acme, { code: lenient });
    expect(saved.description.warnings).toEqual([
      expect.objectContaining({ code: "default_on_required", path: "props.n.default" }),
    ]);
    const published = await hookline.registry.publish(acme, { code: { code: lenient } });
    expect(published.description.warnings).toHaveLength(1);
  });

  it("an action needs no app prop for a private key, and pre-releases are semver", async () => {
    const action = await hookline.registry.publish(acme, {
      code: {
        code: `export default { type: "action", key: "acme-send-greeting", name: "Send Greeting", version: "2.0.0-beta.1", run() { return 1; } };`,
      },
    });
    expect(action).toMatchObject({ key: "acme-send-greeting", version: "2.0.0-beta.1" });
    await expect(hookline.sources.deploy(acme, { componentKey: "acme-send-greeting" })).rejects.toMatchObject(
      {
        code: "bad_request",
        message: expect.stringContaining("is an action"),
      },
    );
  });

  it("refuses the same key and version twice (component_version_exists) and another workspace's public key (registry_key_taken)", async () => {
    const key = "http-twice";
    await hookline.registry.publish(acme, { code: source("1.0.0", { key, name: "Twice" }) });
    for (const visibility of ["private", "public"] as const) {
      await expect(
        hookline.registry.publish(acme, { code: source("1.0.0", { key, name: "Twice" }), visibility }),
      ).rejects.toMatchObject({
        code: "component_version_exists",
        status: 409,
        details: { key, version: "1.0.0" },
      });
    }
    await hookline.registry.publish(acme, {
      code: source("1.0.1", { key, name: "Twice" }),
      visibility: "public",
    });
    // The key is acme's in the public registry now.
    await expect(
      hookline.registry.publish(globex, {
        code: source("9.0.0", { key, name: "Twice" }),
        visibility: "public",
      }),
    ).rejects.toMatchObject({ code: "registry_key_taken", status: 409 });
    await expect(
      hookline.registry.publish(acme, {
        code: source("1.0.2", { key, name: "Twice" }),
        visibility: "public",
      }),
    ).resolves.toMatchObject({ version: "1.0.2" });
    await expect(
      hookline.registry.publish(acme, {
        code: source("1.0.3", { key, name: "Twice" }),
        visibility: "shared" as never,
      }),
    ).rejects.toMatchObject({ code: "bad_request" });
  });
});

describe("deploying by key", () => {
  const key = "http-versions";
  beforeAll(async () => {
    // Published out of order: 1.10.0 is the newest by semver, 1.9.0 was published last.
    for (const version of ["1.2.0", "1.10.0", "1.9.0"]) {
      await hookline.registry.publish(acme, {
        code: source(version, { key, name: "Versions" }),
        visibility: "public",
      });
    }
  });

  it("deploys the newest version (semver order), or the pinned one", async () => {
    for (const ws of [() => acme, () => globex]) {
      const newest = await hookline.sources.deploy(ws(), { componentKey: key });
      expect((await hookline.sources.run(ws(), newest.id)).emitted[0]?.body).toMatchObject({
        version: "1.10.0",
      });
      const pinned = await hookline.sources.deploy(ws(), { componentKey: `${key}@1.2.0` });
      expect((await hookline.sources.run(ws(), pinned.id)).emitted[0]?.body).toMatchObject({
        version: "1.2.0",
      });
      const byField = await hookline.sources.deploy(ws(), {
        componentKey: key,
        componentVersion: "1.9.0",
        props: { label: "pinned" },
      });
      expect((await hookline.sources.run(ws(), byField.id)).emitted[0]?.body).toEqual({
        version: "1.9.0",
        label: "pinned",
      });
    }
    await expect(hookline.sources.deploy(globex, { componentKey: `${key}@3.0.0` })).rejects.toMatchObject({
      code: "not_found",
      message: expect.stringContaining(`${key}@3.0.0`),
    });
    await expect(
      hookline.sources.deploy(globex, { componentKey: `${key}@1.2.0`, componentVersion: "1.9.0" }),
    ).rejects.toMatchObject({ code: "conflicting_parameter", status: 400 });
  });

  it("moves a source to the newest version with an update by key, keeping its props", async () => {
    const deployed = await hookline.sources.deploy(globex, {
      componentKey: `${key}@1.2.0`,
      props: { label: "kept" },
    });
    await hookline.sources.update(globex, deployed.id, { componentKey: key });
    expect((await hookline.sources.run(globex, deployed.id)).emitted[0]?.body).toEqual({
      version: "1.10.0",
      label: "kept",
    });
  });

  it("lists the newest version per key, or every version", async () => {
    const newest = (await hookline.registry.list(globex)).filter((c) => c.key === key);
    expect(newest.map((c) => c.version)).toEqual(["1.10.0"]);
    const all = (await hookline.registry.list(globex, { allVersions: true })).filter((c) => c.key === key);
    expect(all.map((c) => c.version).sort()).toEqual(["1.10.0", "1.2.0", "1.9.0"]);
  });

  it("resolves own versions first: a public key cannot take over a key a workspace publishes privately", async () => {
    const shared = "http-shadowed";
    // initech publishes privately first; acme (which cannot see it) then publishes publicly.
    const mine = await hookline.registry.publish(initech, {
      code: source("1.0.0", { key: shared, name: "Shadowed", tag: "initech" }),
    });
    await hookline.registry.publish(acme, {
      code: source("5.0.0", { key: shared, name: "Shadowed", tag: "acme" }),
      visibility: "public",
    });
    expect(await hookline.registry.get(initech, shared)).toMatchObject({ id: mine.id, version: "1.0.0" });
    await expect(hookline.registry.get(initech, shared, "5.0.0")).rejects.toMatchObject({
      code: "not_found",
    });
    expect((await hookline.registry.list(initech)).filter((c) => c.key === shared).map((c) => c.id)).toEqual([
      mine.id,
    ]);
    const deployed = await hookline.sources.deploy(initech, { componentKey: shared });
    expect((await hookline.sources.run(initech, deployed.id)).emitted[0]?.body).toMatchObject({
      version: "initech",
    });
    // globex has none of its own: it gets acme's public one.
    expect(await hookline.registry.get(globex, shared)).toMatchObject({ version: "5.0.0" });
  });
});

describe("components by key", () => {
  it("reads a saved component by key (its code's key) when nothing is published under it", async () => {
    const saved = await hookline.components.save(acme, source("0.1.0", { key: "http-local", name: "Local" }));
    expect(await hookline.components.get(acme, "http-local")).toMatchObject({ id: saved.id });
    expect(await hookline.components.get(acme, "http-local@0.1.0")).toMatchObject({ id: saved.id });
    await expect(hookline.components.get(acme, "http-local@0.2.0")).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(hookline.components.get(globex, "http-local")).rejects.toMatchObject({ code: "not_found" });
  });

  it("parses key@version", () => {
    expect(parseComponentKey("github-new-star")).toEqual({ key: "github-new-star" });
    expect(parseComponentKey("github-new-star@1.2.0")).toEqual({ key: "github-new-star", version: "1.2.0" });
    expect(parseComponentKey("github-new-star", "1.2.0")).toEqual({
      key: "github-new-star",
      version: "1.2.0",
    });
    expect(() => parseComponentKey("github-new-star@1.2.0", "2.0.0")).toThrow(/pins version 1.2.0/);
  });
});

describe("a publish that loses a race in the store", () => {
  /** A store whose next publish write fails with `error`, as when a concurrent publish won. */
  function racingStore(error: Error) {
    const inner = createMemoryStore();
    const savedComponents = {
      ...inner.savedComponents,
      create: async (input: Parameters<typeof inner.savedComponents.create>[0]) => {
        if (input.key !== undefined) throw error;
        return inner.savedComponents.create(input);
      },
    };
    return { ...inner, savedComponents };
  }

  it("a StoreError conflict is component_version_exists (409); anything else is not mapped", async () => {
    const lost = createHookline({
      store: racingStore(new StoreError("conflict", "unique violation")),
      worker: false,
    });
    const ws = (await lost.workspaces.create({ name: "racer" })).id;
    await expect(lost.registry.publish(ws, { code: source("1.0.0") })).rejects.toMatchObject({
      code: "component_version_exists",
      status: 409,
    });
    await lost.close();

    // An error that only looks like a StoreError by name is not a conflict of the store.
    const lookalike = Object.assign(new Error("unique violation"), { name: "StoreError", code: "conflict" });
    const other = createHookline({ store: racingStore(lookalike), worker: false });
    const ws2 = (await other.workspaces.create({ name: "racer" })).id;
    await expect(other.registry.publish(ws2, { code: source("1.0.0") })).rejects.toBe(lookalike);
    await other.close();
  });
});
