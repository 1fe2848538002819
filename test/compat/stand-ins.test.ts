// Real sources of the corpus run, unchanged, against a loopback stand-in of their app's API: the
// engine's outbound transport sends `https://gitlab.test/...` (the account's `base_api_url`) to a
// node:http server on 127.0.0.1 that answers as GitLab's REST API does. The HTTP sources create their
// webhook in `activate`, check GitLab's token on each request and delete the webhook on delete; the
// timer sources poll. Everything goes through the REST API, as a user deploys them.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { bundleComponent } from "@hookline/cli";
import { createTransport, type Transport } from "@hookline/delivery";
import { createFakeClock } from "@hookline/engine";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RestApi, startRestApi } from "./_api.js";

interface Seen {
  method: string;
  path: string;
  auth: string | undefined;
  body: unknown;
}

/** GitLab's REST API, as much as the sources use: project hooks and the project list. */
class GitlabStandIn {
  seen: Seen[] = [];
  projects: { id: number; name: string; created_at: string }[] = [];
  milestones: { id: number; title: string; created_at: string }[] = [];
  hooks = new Map<number, Record<string, unknown>>();
  private server: Server | undefined;
  base = "";

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const url = new URL(req.url ?? "/", "http://stand-in");
        const text = Buffer.concat(chunks).toString("utf8");
        const body = text ? JSON.parse(text) : undefined;
        this.seen.push({
          method: req.method ?? "",
          path: url.pathname + url.search,
          auth: req.headers.authorization,
          body,
        });
        const reply = (status: number, value?: unknown) =>
          res
            .writeHead(status, { "content-type": "application/json" })
            .end(value === undefined ? "" : JSON.stringify(value));
        const hook = /^\/api\/v4\/projects\/(\d+)\/hooks(?:\/(\d+))?$/.exec(url.pathname);
        if (hook && req.method === "POST") {
          const id = this.hooks.size + 7;
          this.hooks.set(id, body);
          return reply(201, { id, ...body });
        }
        if (hook && req.method === "DELETE") return reply(this.hooks.delete(Number(hook[2])) ? 204 : 404);
        if (url.pathname === "/api/v4/projects/42/milestones" && req.method === "GET") {
          const after = Date.parse(url.searchParams.get("updated_after") ?? "1970-01-01T00:00:00Z");
          return reply(200, this.milestones.filter((m) => Date.parse(m.created_at) > after).reverse());
        }
        if (url.pathname === "/api/v4/projects" && req.method === "GET") {
          const after = Number(url.searchParams.get("id_after") ?? 0);
          const perPage = Number(url.searchParams.get("per_page") ?? 20);
          const newestFirst = [...this.projects].filter((p) => p.id > after).sort((a, b) => b.id - a.id);
          return reply(200, newestFirst.slice(0, perPage));
        }
        reply(404, { message: "404 Not Found" });
      });
    });
    const server = this.server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The guarded transport, with `https://gitlab.test` sent to the stand-in on loopback. */
function standInTransport(gitlab: GitlabStandIn): Transport {
  const inner = createTransport({ allowPrivate: true });
  const rewrite = (input: string | URL | Request): string | URL | Request => {
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    return url.startsWith("https://gitlab.test/") ? url.replace("https://gitlab.test", gitlab.base) : input;
  };
  const fetch = ((input: string | URL | Request, init?: RequestInit) =>
    inner.fetch(rewrite(input), init)) as typeof globalThis.fetch;
  return { ...inner, fetch };
}

const corpusFile = (path: string) =>
  fileURLToPath(new URL(`../../node_modules/@pipedream/gitlab/${path}`, import.meta.url));

const clock = createFakeClock(Date.UTC(2026, 2, 1, 0, 0, 0));
const gitlab = new GitlabStandIn();
let api: RestApi;
let account: string;

beforeAll(async () => {
  await gitlab.start();
  api = await startRestApi({ clock, transport: standInTransport(gitlab) });
  const created = await api.call("POST", "/v1/accounts", {
    app: "gitlab",
    name: "stand-in",
    auth: { oauth_access_token: "glpat-stand-in", base_api_url: "gitlab.test", oauth_uid: "1" },
  });
  expect(created.status).toBe(200);
  account = created.body.data.id;
});
afterAll(async () => {
  await api.close();
  await gitlab.close();
});

async function deploy(path: string, props: Record<string, unknown>) {
  const bundled = await bundleComponent(corpusFile(path));
  const res = await api.call("POST", "/v1/sources", {
    component_code: bundled.code,
    filename: bundled.filename,
    configured_props: { gitlab: { authProvisionId: account }, ...props },
  });
  expect(res.status, JSON.stringify(res.body.error ?? "")).toBe(200);
  return res.body.data as { id: string; endpoint_url: string | null };
}

const events = async (id: string) =>
  (await api.call("GET", `/v1/sources/${id}/event_summaries?expand=event`)).body.data as {
    event: Record<string, unknown>;
    metadata: { summary: string };
  }[];

describe("gitlab HTTP sources (webhooks) against a GitLab stand-in", () => {
  it.each([
    [
      "new-issue",
      "issues_events",
      {
        object_kind: "issue",
        object_attributes: { id: 1, iid: 3, title: "Bug", created_at: "2026-03-01T10:00:00Z" },
        changes: { updated_at: { previous: null } },
      },
      "New issue by Ada (ada): #3 Bug",
    ],
    [
      "new-merge-request",
      "merge_requests_events",
      {
        object_kind: "merge_request",
        object_attributes: {
          id: 2,
          iid: 5,
          title: "Fix",
          action: "open",
          created_at: "2026-03-01T10:00:00Z",
          updated_at: "2026-03-01T10:00:00Z",
        },
      },
      'New Merge Request: "Fix" by Ada (ada)',
    ],
  ] as const)(
    "%s: activate creates the webhook, a signed request is emitted, a forged one is refused, delete removes it",
    async (name, flag, payload, summary) => {
      const before = gitlab.hooks.size;
      const source = await deploy(`sources/${name}/${name}.mjs`, { projectId: 42 });
      expect(gitlab.hooks.size).toBe(before + 1);
      const [hookId, hook] = [...gitlab.hooks].at(-1) as [number, Record<string, unknown>];
      expect(hook).toMatchObject({ url: source.endpoint_url, [flag]: true, token: expect.any(String) });
      const created = gitlab.seen.find((s) => s.method === "POST" && s.path === "/api/v4/projects/42/hooks");
      expect(created?.auth).toBe("Bearer glpat-stand-in");

      const endpoint = new URL(source.endpoint_url as string).pathname;
      const send = (token: string) =>
        api.raw(endpoint, {
          method: "POST",
          headers: { "content-type": "application/json", "x-gitlab-token": token },
          body: JSON.stringify({ user: { name: "Ada", username: "ada" }, ...payload }),
        });
      expect((await send("forged")).status).toBe(404);
      expect((await send(hook.token as string)).status).toBe(200);
      const emitted = await events(source.id);
      expect(emitted).toHaveLength(1);
      expect(emitted[0]?.metadata.summary).toContain(summary);

      expect((await api.call("DELETE", `/v1/sources/${source.id}`)).status).toBe(200);
      expect(gitlab.hooks.has(hookId)).toBe(false);
    },
  );
});

describe("gitlab timer sources against a GitLab stand-in", () => {
  it("new-project: activate remembers the newest project, each tick emits the projects created since, oldest first", async () => {
    gitlab.projects = [{ id: 100, name: "old", created_at: "2026-02-01T00:00:00Z" }];
    const source = await deploy("sources/new-project/new-project.mjs", {});
    expect(gitlab.seen.at(-1)?.path).toBe("/api/v4/projects?owned=true&per_page=1");
    gitlab.projects.push(
      { id: 101, name: "api", created_at: "2026-03-01T01:00:00Z" },
      { id: 102, name: "web", created_at: "2026-03-01T02:00:00Z" },
    );
    clock.advance(16 * 60_000);
    expect(await api.hookline.timers.tick()).toBe(1);
    expect((await events(source.id)).map((e) => e.event.name)).toEqual(["web", "api"]); // newest first
    expect(gitlab.seen.at(-1)?.path).toBe("/api/v4/projects?id_after=100&owned=true");
    clock.advance(16 * 60_000);
    await api.hookline.timers.tick();
    expect(await events(source.id)).toHaveLength(2);
    expect(gitlab.seen.at(-1)?.path).toBe("/api/v4/projects?id_after=102&owned=true");
  });

  it("new-milestone: the first tick remembers the time, later ticks emit the milestones created since", async () => {
    const source = await deploy("sources/new-milestone/new-milestone.mjs", { projectId: 42 });
    clock.advance(16 * 60_000);
    await api.hookline.timers.tick();
    expect(await events(source.id)).toEqual([]);
    expect(gitlab.seen.at(-1)?.path).toMatch(/^\/api\/v4\/projects\/42\/milestones\?updated_after=\d{4}-/);
    // The component reads the sandbox's wall clock: the milestone is created after that first run.
    gitlab.milestones.push({ id: 5, title: "v1.0", created_at: new Date(Date.now() + 60_000).toISOString() });
    clock.advance(16 * 60_000);
    await api.hookline.timers.tick();
    expect((await events(source.id)).map((e) => e.metadata.summary)).toEqual(["New milestone: v1.0"]);
  });
});
