// `pd subscriptions create --filter` and `pd subscriptions replay` against `pd serve`: events
// emitted before the webhook existed reach it, filtered, signed, with their original ids.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  baseEnv,
  pd,
  receiver,
  type Served,
  serve,
  stop,
  tempDir,
  waitFor,
  webhookSecret,
} from "./_helpers.js";

let server: Served;
let env: NodeJS.ProcessEnv;
const cwd = tempDir();

beforeAll(async () => {
  server = await serve(["--memory", "--allow-private-urls"], { cwd, env: baseEnv() }, 60_000);
  env = baseEnv({
    HOOKLINE_API_KEY: server.key ?? "",
    HOOKLINE_BASE_URL: server.url,
    XDG_CONFIG_HOME: join(cwd, "config"),
  });
}, 90_000);

afterAll(async () => {
  if (server) expect(await stop(server)).toBe(0);
});

it("replays a window of stored events to a webhook subscribed later, with a filter, in batches", async () => {
  const hook = await receiver();
  try {
    writeFileSync(
      join(cwd, "history.mjs"),
      `export default { name: "History", version: "0.1.0",
        run() { for (let n = 0; n < 5; n++) this.$emit({ n }, { summary: "n=" + n }); } };`,
    );
    expect((await pd(["deploy", "history.mjs", "--name", "history"], { cwd, env })).code).toBe(0);
    expect((await pd(["run", "history"], { cwd, env })).code).toBe(0);
    const events = JSON.parse(
      (await pd(["events", "history", "-n", "10", "--json"], { cwd, env })).stdout,
    ) as {
      id: string;
      event: { n: number };
    }[];
    expect(events).toHaveLength(5);

    const webhook = JSON.parse(
      (await pd(["webhooks", "create", hook.url, "--name", "late", "--json"], { cwd, env })).stdout,
    ) as { id: string };
    const created = await pd(
      ["subscriptions", "create", "history", "late", "--filter", '{"event.n":{"$gte":1}}', "--json"],
      { cwd, env },
    );
    expect(created.code, created.stderr).toBe(0);
    const sub = JSON.parse(created.stdout) as { id: string; filter: unknown };
    expect(sub.filter).toEqual({ "event.n": { $gte: 1 } });

    const replay = await pd(
      [
        "subscriptions",
        "replay",
        sub.id,
        "--since",
        "1h",
        "--filter",
        '{"event.n":{"$lt":4}}',
        "--batch",
        "2",
      ],
      { cwd, env },
    );
    expect(replay.code, replay.stderr).toBe(0);
    expect(replay.stdout).toContain(`Replayed 3 events to ${webhook.id}`);
    expect(replay.stderr).toMatch(/rpl_\w+ running: scanned \d+, replayed 2 so far/);
    expect(replay.stderr).toMatch(/rpl_\w+ done: scanned \d+, replayed 3 so far/);
    // The replay is recorded: listed with its progress, and resuming a finished one sends nothing.
    const listed = await pd(["subscriptions", "replays", sub.id, "--json"], { cwd, env });
    expect(listed.code, listed.stderr).toBe(0);
    const jobs = JSON.parse(listed.stdout) as { id: string; status: string; enqueued: number }[];
    expect(jobs.map((j) => [j.status, j.enqueued])).toEqual([["done", 3]]);
    const resumed = await pd(["subscriptions", "replay", sub.id, "--resume", jobs[0]!.id, "--json"], {
      cwd,
      env,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ id: jobs[0]!.id, status: "done", enqueued: 3 });
    await waitFor(() => (hook.requests.length >= 3 ? true : undefined), 30_000, "3 replayed deliveries");
    const secret = await webhookSecret(server.url, server.key ?? "", webhook.id);
    const got = hook.requests.map((r) => ({
      n: (new Webhook(secret).verify(r.body, r.headers as Record<string, string>) as { n: number }).n,
      id: r.headers["webhook-id"],
    }));
    expect(got.map((g) => g.n).sort()).toEqual([1, 2, 3]);
    for (const g of got) expect(g.id).toBe(events.find((e) => e.event.n === g.n)?.id);

    const bad = await pd(["subscriptions", "replay", sub.id, "--filter", '{"event.n":{"$bogus":1}}'], {
      cwd,
      env,
    });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("filter.event.n.$bogus");
  } finally {
    await hook.close();
  }
}, 120_000);
