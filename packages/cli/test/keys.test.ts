// `pd workspaces` and `pd keys` through the built binary against `pd serve`: the key printed at the
// first start is an operator key; it creates a workspace and a key, the key works, is listed by its
// prefix with its last use, is revoked and refused; a workspace key cannot manage keys. And the
// operator key `pd serve` makes for a store whose keys all predate operator keys (an upgrade),
// once, also when two nodes start at once.
import { createHookline } from "@hookline/engine";
import { createMemoryStore } from "@hookline/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { _ensureApiKey, OPERATOR_KEY_SETTING } from "../src/_serve-keys.js";
import { baseEnv, pd, type Served, serve, stop, tempDir } from "./_helpers.js";

describe("pd workspaces and pd keys", () => {
  let server: Served;
  let cwd: string;
  beforeAll(async () => {
    cwd = tempDir();
    server = await serve(["--memory"], { cwd, env: baseEnv() }, 60_000);
  }, 90_000);
  afterAll(async () => {
    if (server) await stop(server);
  });

  const run = (args: string[], key = server.key) =>
    pd(args, { cwd, env: baseEnv({ HOOKLINE_BASE_URL: server.url, HOOKLINE_API_KEY: key ?? "" }) });
  const json = async <T>(args: string[], key?: string): Promise<T> => {
    const result = await run([...args, "--json"], key);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout) as T;
  };

  it("the first start's key manages workspaces and keys; a new key works until revoked", async () => {
    expect(server.output.stdout).toMatch(/an operator key: it also manages workspaces and keys/);
    const ws = await json<{ id: string; name: string }>(["workspaces", "create", "acme"]);
    expect(ws.name).toBe("acme");
    const made = await json<{ id: string; key: string; prefix: string; role: string }>([
      "keys",
      "create",
      "--workspace",
      ws.id,
      "--name",
      "ci",
    ]);
    expect(made.role).toBe("workspace");
    expect(made.key.startsWith(made.prefix)).toBe(true);

    expect((await run(["list", "webhooks"], made.key)).code).toBe(0);
    const refused = await run(["workspaces", "list"], made.key);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^operator_key_required: /);

    const table = await run(["keys", "list", "--workspace", ws.id]);
    expect(table.code).toBe(0);
    expect(table.stdout).toContain(`${made.prefix}…`);
    expect(table.stdout).not.toContain(made.key);
    const listed = await json<{ id: string; last_used_at: number | null }[]>([
      "keys",
      "list",
      "--workspace",
      ws.id,
    ]);
    expect(listed.map((k) => k.id)).toEqual([made.id]);
    expect(listed[0]?.last_used_at).not.toBeNull();

    const revoked = await run(["keys", "revoke", made.id]);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked key ci (${made.id}`);
    const after = await run(["list", "webhooks"], made.key);
    expect(after.code).toBe(1);
    expect(after.stderr).toMatch(/^unauthorized: /);

    const all = await json<{ id: string; revoked_at: number | null }[]>(["workspaces", "list"]);
    expect(all.map((w) => w.id)).toContain(ws.id);
    expect((await run(["workspaces", "revoke", ws.id])).code).toBe(0);
    const gone = await json<{ revoked_at: number | null }>(["workspaces", "get", ws.id]);
    expect(gone.revoked_at).not.toBeNull();
  }, 60_000);
});

describe("the operator key pd serve makes", () => {
  const quiet = { worker: false as const };

  it("on a fresh store: the first key is it, made once", async () => {
    const store = createMemoryStore();
    const hookline = createHookline({ store, ...quiet });
    const first = await _ensureApiKey(hookline, store, undefined, undefined);
    expect(first.created).toMatch(/^hl_/);
    expect(first.operator).toBeUndefined();
    expect((await hookline.apiKeys.authenticate(first.created as string))?.apiKey.role).toBe("operator");
    const again = await _ensureApiKey(hookline, store, undefined, undefined);
    expect(again).toEqual({ where: "created on first start (not stored here)" });
    await hookline.close();
  });

  it("on a store whose keys predate operator keys: one operator key, also when two nodes start at once", async () => {
    const store = createMemoryStore();
    const hookline = createHookline({ store, ...quiet });
    const ws = await hookline.workspaces.create({ name: "default" });
    const old = await hookline.apiKeys.create(ws.id, { name: "pd serve" });
    const [a, b] = await Promise.all([
      _ensureApiKey(hookline, store, undefined, undefined),
      _ensureApiKey(hookline, store, undefined, undefined),
    ]);
    const made = [a.operator, b.operator].filter((o) => o !== undefined);
    expect(made).toHaveLength(1);
    const operator = await hookline.apiKeys.authenticate(made[0]?.key as string);
    expect(operator?.apiKey.role).toBe("operator");
    expect(operator?.workspace.id).toBe(ws.id);
    expect(await store.settings.get(OPERATOR_KEY_SETTING)).toBe(operator?.apiKey.id);
    const live = (await hookline.apiKeys.list(ws.id)).filter((k) => k.revokedAt === undefined);
    expect(live.map((k) => [k.id, k.role])).toEqual([
      [old.apiKey.id, "workspace"],
      [operator?.apiKey.id, "operator"],
    ]);
    await hookline.close();
  });
});
