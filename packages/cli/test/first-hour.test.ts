/**
 * The first hour of a new user (issue 18), through the `pd` binary against a `pd serve` with the
 * SSRF guard as it is by default: errors to act on, names that resolve to what was meant, a
 * webhook on the user's own machine, and the commands that cover the rest of the API.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  closedPort,
  HAS_SCRIPT,
  pd,
  pdTty,
  post,
  ROOT,
  receiverOn,
  type Served,
  serve,
  stop,
  tempDir,
  waitFor,
  waitForAsync,
} from "./_helpers.js";

let server: Served;
let env: NodeJS.ProcessEnv;
const cwd = tempDir();

beforeAll(async () => {
  server = await serve(["--memory"], { cwd, env: baseEnv() }, 60_000);
  env = baseEnv({
    HOOKLINE_API_KEY: server.key ?? "",
    HOOKLINE_BASE_URL: server.url,
    XDG_CONFIG_HOME: join(cwd, "config"),
  });
}, 120_000);

afterAll(async () => {
  if (server) expect(await stop(server)).toBe(0);
});

const json = <T>(text: string): T => JSON.parse(text) as T;

// One test at a time: each runs many `pd` processes, and the machine is shared.
describe("the first hour, against pd serve with the SSRF guard on", () => {
  it("bundle errors name the file, line and column and show the line once; a missing default export is named", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "bad.mjs"),
      'export default {\n  name: "x",\n  async run() {\n    const a = [1, 2,;\n  },\n};\n',
    );
    // Sent as is (no relative import): the server bundles and answers the error.
    const remote = await pd(["deploy", "bad.mjs"], { cwd: dir, env });
    expect(remote.code).toBe(1);
    expect(remote.stderr).toContain(
      [
        'bundle_failed: bad.mjs:4:21: Unexpected ";"',
        "    4 |     const a = [1, 2,;",
        "      |                     ^",
      ].join("\n"),
    );
    expect(remote.stderr.match(/Unexpected/g)).toHaveLength(1);
    // Bundled here (a relative import): the same shape, with the imported file's path.
    writeFileSync(join(dir, "main.mjs"), 'import lib from "./lib.mjs";\nexport default lib;\n');
    writeFileSync(join(dir, "lib.mjs"), "export default {\n  name: (1,;\n};\n");
    const local = await pd(["deploy", "main.mjs"], { cwd: dir, env });
    expect(local.code).toBe(1);
    expect(local.stderr).toMatch(
      /^bundle_failed: lib\.mjs:2:12: Unexpected ";"\n {4}2 \| {3}name: \(1,;\n {6}\| {12}\^$/m,
    );
    expect(local.stderr.match(/Unexpected/g)).toHaveLength(1);

    writeFileSync(
      join(dir, "named.mjs"),
      'export const source = { name: "x", version: "1", async run() {} };\n',
    );
    const named = await pd(["deploy", "named.mjs"], { cwd: dir, env });
    expect(named.code).toBe(1);
    expect(named.stderr).toContain("The module has no default export");
    expect(named.stderr).toContain("(it exports source)");
    expect(named.stderr).not.toContain("name is required");
  }, 120_000);

  it("a taken name deploys under a new slug and says so; names resolve exactly and say which source they picked", async () => {
    const dir = tempDir();
    expect((await pd(["init", "source", "taken"], { cwd: dir, env })).code).toBe(0);
    const first = await pd(["deploy", "taken.mjs", "--name", "taken"], { cwd: dir, env });
    expect(first.stdout).toMatch(/^✔ Deployed taken \(dc_\w+\)$/m);
    const second = await pd(["deploy", "taken.mjs", "--name", "taken"], { cwd: dir, env });
    expect(second.code).toBe(0);
    const secondId = /Deployed taken-1 \((dc_\w+)\), name taken was taken$/m.exec(second.stdout)?.[1];
    expect(secondId).toBeDefined();
    const endpoint = /endpoint: (\S+)/.exec(second.stdout)?.[1] ?? "";
    expect(await post(endpoint, { to: "second" })).toBe(200);

    // "taken" is the first source's slug: that one, and a note names the other one of that name.
    const byName = await pd(["events", "taken", "--json"], { cwd: dir, env });
    expect(json<unknown[]>(byName.stdout)).toEqual([]);
    expect(byName.stderr).toContain(`also named "taken": taken-1 (${secondId})`);
    const bySlug = await pd(["events", "taken-1", "--json"], { cwd: dir, env });
    expect(json<Array<{ event: unknown }>>(bySlug.stdout).map((e) => e.event)).toEqual([{ to: "second" }]);
    expect(bySlug.stderr).toBe("");

    // A name that is no slug resolves when one source has it, and is ambiguous when several do.
    expect((await pd(["deploy", "taken.mjs", "--name", "Taken Twice"], { cwd: dir, env })).code).toBe(0);
    const unique = await pd(["events", "Taken Twice"], { cwd: dir, env });
    expect(unique.code).toBe(0);
    expect((await pd(["deploy", "taken.mjs", "--name", "Taken Twice"], { cwd: dir, env })).stdout).toMatch(
      /Deployed taken-twice-1 \(dc_\w+\), name Taken Twice was taken/,
    );
    const ambiguous = await pd(["events", "Taken Twice"], { cwd: dir, env });
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toMatch(
      /^ambiguous_name: 2 sources are named "Taken Twice": taken-twice \(dc_\w+\), taken-twice-1 \(dc_\w+\)/,
    );
  }, 120_000);

  it("a loopback webhook: a warning on create, one line in the server log, and deliveries that show why", async () => {
    const dir = tempDir();
    const port = await closedPort();
    const hookUrl = `http://127.0.0.1:${port}/hook`;
    expect((await pd(["init", "source", "guarded"], { cwd: dir, env })).code).toBe(0);
    const deployed = await pd(["deploy", "guarded.mjs", "--name", "guarded"], { cwd: dir, env });
    const endpoint = /endpoint: (\S+)/.exec(deployed.stdout)?.[1] ?? "";
    const created = await pd(["webhooks", "create", hookUrl, "--name", "guarded-hook"], { cwd: dir, env });
    expect(created.code).toBe(0);
    expect(created.stderr).toMatch(
      new RegExp(
        `^⚠ warning url: ${hookUrl.replace(/[./]/g, "\\$&")} is refused by the SSRF guard: .*private.*`,
        "m",
      ),
    );
    expect(created.stderr).toContain("--allow-private-urls");
    expect(created.stderr).toContain("--dev");
    const webhookId = /Created webhook (wh_\w+)/.exec(created.stdout)?.[1] ?? "";
    expect((await pd(["subscriptions", "create", "guarded", "guarded-hook"], { cwd: dir, env })).code).toBe(
      0,
    );

    expect(await post(endpoint, { n: 1 })).toBe(200);
    expect(await post(endpoint, { n: 2 })).toBe(200);
    let listed: Array<{ status: string; last_error: string | null; attempt_log: unknown[] }> = [];
    await waitForAsync(async () => {
      const run = await pd(["webhooks", "deliveries", "guarded-hook", "--json"], { cwd: dir, env });
      listed = json(run.stdout);
      return listed.length === 2 && listed.every((d) => d.status === "failed");
    }, 60_000);
    expect(listed.map((d) => d.last_error)).toEqual(["ssrf_blocked", "ssrf_blocked"]);
    expect(listed[0]?.attempt_log).toHaveLength(1);
    const table = await pd(["webhooks", "deliveries", "guarded-hook"], { cwd: dir, env });
    expect(table.stdout).toMatch(/^ID +STATUS +ATTEMPTS +LAST/);
    expect(table.stdout).toMatch(/failed +1 +ssrf_blocked/);
    expect(table.stderr).toContain("2 of these were refused by the SSRF guard (ssrf_blocked)");
    expect(table.stderr).toContain("pd webhooks recover guarded-hook");
    // The server log says it once for this webhook, however many deliveries were refused.
    const lines = server.output.stderr.split("\n").filter((l) => l.includes(webhookId) && l.includes("SSRF"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/refused by the SSRF guard.*--dev.*pd webhooks recover/);

    // Retry one now, and filter by status.
    const retried = await pd(
      ["webhooks", "retry", "guarded-hook", (listed[0] as unknown as { id: string }).id],
      {
        cwd: dir,
        env,
      },
    );
    expect(retried.code).toBe(0);
    expect(retried.stdout).toMatch(/Sending dlv_\w+ again now/);
    const none = await pd(["webhooks", "deliveries", "guarded-hook", "--status", "succeeded"], {
      cwd: dir,
      env,
    });
    expect(none.stdout).toContain("(none)");
    const badStatus = await pd(["webhooks", "deliveries", "guarded-hook", "--status", "bogus"], {
      cwd: dir,
      env,
    });
    expect(badStatus.code).toBe(1);
    expect(badStatus.stderr).toMatch(/^validation_failed: /);
    // A test event is refused the same way, and says how to allow it.
    const tested = await pd(["webhooks", "test", "guarded-hook"], { cwd: dir, env });
    expect(tested.code).toBe(1);
    expect(tested.stderr).toMatch(
      /^test_failed: http:\/\/127\.0\.0\.1:\d+\/hook no answer \(ssrf_blocked\): .*--dev/,
    );
  }, 120_000);

  it("pd webhooks secret, rotate, update and recover; unknown actions are usage errors", async () => {
    const dir = tempDir();
    const created = json<{ id: string; warnings?: unknown[] }>(
      (
        await pd(["webhooks", "create", "https://93.184.216.34/h", "--name", "secrets", "--json"], {
          cwd: dir,
          env,
        })
      ).stdout,
    );
    expect(created.warnings).toBeUndefined();
    const secret = (await pd(["webhooks", "secret", "secrets"], { cwd: dir, env })).stdout.trim();
    expect(secret).toMatch(/^whsec_/);
    const rotated = await pd(["webhooks", "rotate", "secrets"], { cwd: dir, env });
    expect(rotated.code).toBe(0);
    const fresh = rotated.stdout.trim();
    expect(fresh).toMatch(/^whsec_/);
    expect(fresh).not.toBe(secret);
    expect(rotated.stderr).toContain("previous secret keeps verifying for 24 hours");
    expect((await pd(["webhooks", "secret", created.id], { cwd: dir, env })).stdout.trim()).toBe(fresh);

    const disabled = await pd(["webhooks", "update", "secrets", "--disable"], { cwd: dir, env });
    expect(disabled.stdout).toMatch(/Updated webhook wh_\w+ → https:\/\/93\.184\.216\.34\/h \[disabled\]/);
    const moved = await pd(["webhooks", "update", "secrets", "--url", "http://10.0.0.1/h", "--enable"], {
      cwd: dir,
      env,
    });
    expect(moved.code).toBe(0);
    expect(moved.stderr).toMatch(
      /^⚠ warning url: http:\/\/10\.0\.0\.1\/h is refused by the SSRF guard.*\(ssrf_blocked\)$/m,
    );
    const recovered = await pd(["webhooks", "recover", "secrets", "--since", "2h"], { cwd: dir, env });
    expect(recovered.stdout).toMatch(/Sending 0 failed deliveries again \(failed since \d{4}-/);
    const badSince = await pd(["webhooks", "recover", "secrets", "--since", "yesterday"], { cwd: dir, env });
    expect(badSince.code).toBe(1);
    expect(badSince.stderr).toMatch(/^usage: --since yesterday: give a time ago/);
    const unknown = await pd(["webhooks", "frobnicate"], { cwd: dir, env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^usage: unknown action "frobnicate"; use one of create, update, delete, deliveries/,
    );
  }, 120_000);

  it("pd run runs a source now and shows what it emitted; a failing run exits 1 with the component's own frame", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "runner.mjs"),
      `export default {
  name: "Runner",
  version: "0.1.0",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 3600 } } },
  async run(event) {
    this.$emit({ got: event }, { summary: "ran" });
    if (event.fail) throw new Error("broken: " + event.fail);
  },
};
`,
    );
    expect((await pd(["deploy", "runner.mjs", "--name", "runner"], { cwd: dir, env })).code).toBe(0);
    const timer = await pd(["run", "runner"], { cwd: dir, env });
    expect(timer.code).toBe(0);
    expect(timer.stdout).toContain("emit ran");
    expect(timer.stdout).toContain('"interval_seconds":3600');
    expect(timer.stdout).toMatch(/Ran runner in \d+ ms: 1 event emitted/);
    const failing = await pd(["run", "runner", "--event", '{"fail":"on purpose"}'], { cwd: dir, env });
    expect(failing.code).toBe(1);
    expect(failing.stdout).toContain('{"got":{"fail":"on purpose"}}');
    expect(failing.stderr).toMatch(
      /^run_failed: Error: broken: on purpose\n {2}at run \(runner\.mjs:7:\d+\)\n$/,
    );
    writeFileSync(join(dir, "event.json"), '{"from": "file"}');
    const fromFile = json<{ emitted: Array<{ event: unknown }>; error: unknown }>(
      (await pd(["run", "runner", "--event-file", "event.json", "--json"], { cwd: dir, env })).stdout,
    );
    expect(fromFile).toMatchObject({ emitted: [{ event: { got: { from: "file" } } }], error: null });
    const notJson = await pd(["run", "runner", "--event", "{nope"], { cwd: dir, env });
    expect(notJson.code).toBe(1);
    expect(notJson.stderr).toMatch(/^usage: --event: not JSON/);
  }, 120_000);

  it("pd update --activate (docs/cli.md's example) reactivates a deactivated source", async () => {
    const dir = tempDir();
    expect((await pd(["init", "source", "toggled"], { cwd: dir, env })).code).toBe(0);
    const deployed = await pd(["deploy", "toggled.mjs", "--name", "toggled"], { cwd: dir, env });
    const endpoint = /endpoint: (\S+)/.exec(deployed.stdout)?.[1] ?? "";
    const off = await pd(["update", "toggled", "--deactivate"], { cwd: dir, env });
    expect(off.stdout).toMatch(/Updated toggled \(dc_\w+\) \[inactive\]/);
    expect(await post(endpoint, { while: "off" })).toBe(404);
    const on = await pd(["update", "toggled", "--activate"], { cwd: dir, env });
    expect(on.stderr).toBe("");
    expect(on.code).toBe(0);
    expect(on.stdout).toMatch(/Updated toggled \(dc_\w+\)\n/);
    expect(await post(endpoint, { while: "on" })).toBe(200);
  }, 120_000);

  it("the first example of docs/components.md deploys as written and answers its own response", async () => {
    const dir = tempDir();
    const page = readFileSync(join(ROOT, "docs", "components.md"), "utf8");
    const example = /```js\n([\s\S]*?)```/.exec(page)?.[1] ?? "";
    writeFileSync(join(dir, "example.mjs"), example);
    const deployed = await pd(["deploy", "example.mjs", "--name", "docs-example"], { cwd: dir, env });
    expect(deployed.stderr).not.toMatch(/^\w+: /m);
    expect(deployed.code).toBe(0);
    const endpoint = /endpoint: (\S+)/.exec(deployed.stdout)?.[1] ?? "";
    const res = await fetch(endpoint, {
      method: "POST",
      body: "{}",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ greeting: "hi", count: 1 });
    // A source is never a listener: the listener names a webhook.
    const wrong = await pd(["subscriptions", "create", "docs-example", "docs-example"], { cwd: dir, env });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^not_found: No webhook named docs-example/);
  }, 120_000);

  it("pd accounts create (fields from the component, asked on a terminal), list and delete; the source reads $auth", async () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, "gh.mjs"),
      `export default {
  name: "GH",
  version: "0.1.0",
  props: { github: { type: "app", app: "github" }, timer: { type: "$.interface.timer", default: { intervalSeconds: 3600 } } },
  async run() {
    this.$emit({ token: this.github.$auth.oauth_access_token, login: this.github.$auth["login"] });
  },
};
`,
    );
    const missing = await pd(["accounts", "create", "github", "--from", "gh.mjs", "--auth", "login=me"], {
      cwd: dir,
      env,
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(
      /^usage: gh\.mjs reads \$auth\.oauth_access_token: give --auth oauth_access_token=\.\.\./,
    );
    const nothing = await pd(["accounts", "create", "github"], { cwd: dir, env });
    expect(nothing.stderr).toMatch(/^usage: no credentials: give --auth field=value/);

    const created = await pd(
      [
        "accounts",
        "create",
        "github",
        "--name",
        "octo",
        "--auth",
        "oauth_access_token=t0k",
        "--auth",
        "login=octocat",
      ],
      { cwd: dir, env },
    );
    expect(created.code).toBe(0);
    const id = /Connected github account octo \((apn_\w+)\)/.exec(created.stdout)?.[1] ?? "";
    expect(created.stdout).toContain(`'{"authProvisionId":"${id}"}'`);
    const list = await pd(["accounts", "list", "--app", "github"], { cwd: dir, env });
    expect(list.stdout).toMatch(new RegExp(`^${id} +github +octo`, "m"));
    expect(list.stdout).not.toContain("t0k");

    const source = await pd(
      ["deploy", "gh.mjs", "--name", "gh", "--prop", `github={"authProvisionId":"${id}"}`],
      { cwd: dir, env },
    );
    expect(source.code).toBe(0);
    const ran = json<{ emitted: Array<{ event: unknown }> }>(
      (await pd(["run", "gh", "--json"], { cwd: dir, env })).stdout,
    );
    expect(ran.emitted[0]?.event).toEqual({ token: "t0k", login: "octocat" });

    const inUse = await pd(["accounts", "delete", "octo"], { cwd: dir, env });
    expect(inUse.code).toBe(1);
    expect(inUse.stderr).toMatch(/^account_in_use: /);
    expect((await pd(["delete", "gh"], { cwd: dir, env })).code).toBe(0);
    const deleted = await pd(["accounts", "delete", "octo"], { cwd: dir, env });
    expect(deleted.stdout).toContain(`Deleted github account octo (${id})`);

    if (HAS_SCRIPT) {
      // On a terminal the fields the component reads are asked for, without echo.
      const tty = await pdTty(
        ["accounts", "create", "github", "--from", "gh.mjs", "--name", "asked"],
        { cwd: dir, env },
        [
          { when: /oauth_access_token.*: /, type: "s3cret\r" },
          { when: /login.*: /, type: "someone\r" },
        ],
      );
      expect(tty.code).toBe(0);
      expect(tty.screen).toMatch(/Connected github account asked \(apn_\w+\)/);
      expect(tty.screen).not.toContain("s3cret");
      // pd deploy on a terminal offers the app's accounts for the app prop.
      const chosen = await pdTty(["deploy", "gh.mjs", "--name", "gh-tty"], { cwd: dir, env }, [
        { when: /asked \(apn_\w+\)[\s\S]*no account[\s\S]*Choose 1-2: /, type: "1\r" },
      ]);
      expect(chosen.code).toBe(0);
      const viaTty = json<{ emitted: Array<{ event: unknown }> }>(
        (await pd(["run", "gh-tty", "--json"], { cwd: dir, env })).stdout,
      );
      expect(viaTty.emitted[0]?.event).toEqual({ token: "s3cret", login: "someone" });
      // Without --from, field names are asked until an empty one.
      const free = await pdTty(["accounts", "create", "acme"], { cwd: dir, env }, [
        { when: /Field name: /, type: "api_key\r" },
        { when: /api_key.*: /, type: "k3y\r" },
        { when: /Field name: /, type: "\r" },
      ]);
      expect(free.code).toBe(0);
      expect(free.screen).toMatch(/Connected acme account/);
      expect(free.screen).not.toContain("k3y");
    }
  }, 120_000);
});

describe("pd serve settings and recovering what the guard refused", () => {
  it("limits from flags and environment variables: banner, retention, run timeout; bad values name the flag", async () => {
    const dir = tempDir();
    const limited = await serve(
      ["--memory", "--dev", "--keep-events", "2", "--run-timeout", "3s", "--allow-url", "10.0.0.0/8"],
      { cwd: dir, env: baseEnv({ HOOKLINE_ATTEMPT_TIMEOUT: "5s", HOOKLINE_RATE_LIMIT: "1000/1m" }) },
    );
    try {
      expect(limited.output.stdout).toContain(
        "Outbound: allowed: loopback (--dev: 127.0.0.0/8, ::1, localhost); 10.0.0.0/8 (--allow-url); other private addresses refused",
      );
      expect(limited.output.stdout).toMatch(
        /Settings: --run-timeout 3s --keep-events 2 --attempt-timeout 5s --rate-limit 1000\/1m --allow-url 10\.0\.0\.0\/8 --dev/,
      );
      const localEnv = baseEnv({ HOOKLINE_API_KEY: limited.key ?? "", HOOKLINE_BASE_URL: limited.url });
      writeFileSync(
        join(dir, "slow.mjs"),
        `export default {
  name: "Slow", version: "0.1.0",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 3600 } } },
  async run(event) {
    if (event && event.spin) for (;;) {}
    this.$emit({ at: Date.now() });
  },
};
`,
      );
      const deployed = await pd(["deploy", "slow.mjs", "--name", "slow"], { cwd: dir, env: localEnv });
      expect(deployed.code, deployed.stderr).toBe(0);
      for (let i = 0; i < 3; i++)
        expect((await pd(["run", "slow"], { cwd: dir, env: localEnv })).code).toBe(0);
      // Retention is applied off the emit path, within a few seconds of the write.
      let kept: unknown[] = [];
      const deadline = Date.now() + 30_000;
      do {
        kept = json<unknown[]>((await pd(["events", "slow", "--json"], { cwd: dir, env: localEnv })).stdout);
        if (kept.length <= 2) break;
        await new Promise((resolve) => setTimeout(resolve, 500));
      } while (Date.now() < deadline);
      expect(kept).toHaveLength(2);
      const spun = await pd(["run", "slow", "--event", '{"spin":true}'], { cwd: dir, env: localEnv });
      expect(spun.code).toBe(1);
      expect(spun.stderr).toMatch(/^run_failed: .*(time|timeout)/i);
      // --dev: no warning for loopback, one for another private range.
      const loop = await pd(["webhooks", "create", "http://127.0.0.1:9/h"], { cwd: dir, env: localEnv });
      expect(loop.stderr).toBe("");
      const lan = await pd(["webhooks", "create", "http://192.168.0.1/h"], { cwd: dir, env: localEnv });
      expect(lan.stderr).toMatch(/^⚠ warning url: .*refused by the SSRF guard/);
    } finally {
      expect(await stop(limited)).toBe(0);
    }
    // Each bad value is its own `pd serve`, which exits at once: started together, not one by one.
    const cases = [
      [["--run-timeout", "soon"], {}, /^usage: --run-timeout "soon": expected a duration such as 500ms/m],
      [[], { HOOKLINE_KEEP_EVENTS: "-3" }, /^usage: HOOKLINE_KEEP_EVENTS "-3": expected a whole number/m],
      [
        ["--rate-limit", "lots"],
        {},
        /^usage: --rate-limit "lots": expected requests per window such as 600\/60s, or off/m,
      ],
      [["--sandbox-memory", "12"], {}, /^usage: --sandbox-memory "12": must be at least 1048576 bytes/m],
    ] as const;
    const results = await Promise.all(
      cases.map(([args, envVars]) =>
        pd(["serve", "--memory", "--port", "0", ...args], { cwd: dir, env: baseEnv(envVars) }),
      ),
    );
    for (const [i, [, , message]] of cases.entries()) {
      const bad = results[i] as Awaited<ReturnType<typeof pd>>;
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(message);
    }
  }, 120_000);

  it("deliveries the guard refused are sent after a restart with --dev and pd webhooks recover", async () => {
    const dir = tempDir();
    const first = await serve([], { cwd: dir, env: baseEnv() }, 120_000);
    const key = first.key ?? "";
    const port = await closedPort();
    const hook = receiverOn(port);
    await hook.start();
    let second: Served | undefined;
    try {
      const local = baseEnv({ HOOKLINE_API_KEY: key, HOOKLINE_BASE_URL: first.url });
      expect((await pd(["init", "source", "later"], { cwd: dir, env: local })).code).toBe(0);
      const deployed = await pd(["deploy", "later.mjs", "--name", "later"], { cwd: dir, env: local });
      const endpoint = /endpoint: (\S+)/.exec(deployed.stdout)?.[1] ?? "";
      await pd(["webhooks", "create", `http://127.0.0.1:${port}/in`, "--name", "mine"], {
        cwd: dir,
        env: local,
      });
      await pd(["subscriptions", "create", "later", "mine"], { cwd: dir, env: local });
      expect(await post(endpoint, { kept: true })).toBe(200);
      await waitForAsync(async () => {
        const run = await pd(["webhooks", "deliveries", "mine", "--json"], { cwd: dir, env: local });
        return json<Array<{ last_error: string | null }>>(run.stdout)[0]?.last_error === "ssrf_blocked";
      }, 60_000);
      expect(hook.requests).toHaveLength(0);
      expect(await stop(first)).toBe(0);

      second = await serve(["--dev"], { cwd: dir, env: baseEnv() }, 120_000);
      expect(second.output.stdout).toContain("Outbound: allowed: loopback (--dev");
      const again = baseEnv({ HOOKLINE_API_KEY: key, HOOKLINE_BASE_URL: second.url });
      const recovered = await pd(["webhooks", "recover", "mine"], { cwd: dir, env: again });
      expect(recovered.stdout).toContain("Sending 1 failed delivery again");
      const got = await waitFor(() => hook.requests[0], 60_000, "the recovered delivery");
      expect(JSON.parse(got.body)).toEqual({ kept: true });
    } finally {
      if (second) expect(await stop(second)).toBe(0);
      else await stop(first);
      await hook.close();
    }
  }, 240_000);
});
