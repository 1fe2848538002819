import { readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  baseEnv,
  closedPort,
  HAS_SCRIPT,
  PROPS_COMPONENT,
  pd,
  pdTty,
  post,
  ROOT,
  receiver,
  receiverOn,
  type Served,
  serve,
  spawnPd,
  stop,
  tempDir,
  waitFor,
  waitForAsync,
  webhookSecret,
} from "./_helpers.js";

// One in-memory server for every test of this file. Tests are independent (own folders and
// names) and run concurrently, also with the PGlite test (restart) at the end.
let server: Served;
let env: NodeJS.ProcessEnv;
const cwd = tempDir();

beforeAll(async () => {
  server = await serve(["--memory", "--allow-private-urls"], { cwd, env: baseEnv() }, 60_000);
  expect(server.key).toMatch(/^hl_/);
  env = baseEnv({
    HOOKLINE_API_KEY: server.key ?? "",
    HOOKLINE_BASE_URL: server.url,
    XDG_CONFIG_HOME: join(cwd, "config"),
  });
}, 90_000);

afterAll(async () => {
  if (server) expect(await stop(server)).toBe(0);
});

const json = <T>(text: string): T => JSON.parse(text) as T;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point
const ANSI = /\u001b\[/;

interface SourceRow {
  id: string;
  name: string;
  endpoint_url: string;
  configured_props: Record<string, unknown>;
}

describe.concurrent("pd against pd serve", () => {
  it("deploys a scaffolded source, delivers its events signed to a subscribed webhook, shows events and logs", async () => {
    const hook = await receiver();
    try {
      expect((await pd(["init", "source", "hello"], { cwd, env })).code).toBe(0);
      const deployed = await pd(["deploy", "hello.mjs", "--name", "hello"], { cwd, env });
      expect(deployed.stderr).toContain("Deploying");
      expect(deployed.code).toBe(0);

      const list = await pd(["list", "sources", "--json"], { cwd, env });
      const hello = json<SourceRow[]>(list.stdout).find((s) => s.name === "hello");
      expect(hello?.id).toMatch(/^dc_/);

      const webhook = json<{ id: string }>(
        (await pd(["webhooks", "create", hook.url, "--name", "receiver", "--json"], { cwd, env })).stdout,
      );
      expect(webhook.id).toMatch(/^wh_/);
      const sub = await pd(["subscriptions", "create", "hello", webhook.id], { cwd, env });
      expect(sub.code).toBe(0);
      expect(sub.stdout).toContain(hello?.id);

      expect(await post(hello?.endpoint_url ?? "", { n: 1 })).toBe(200);
      const got = await waitFor(() => hook.requests[0], 60_000, "the webhook delivery");
      expect(JSON.parse(got.body)).toEqual({ n: 1 });
      // Signed along Standard Webhooks with this webhook's secret.
      const secret = await webhookSecret(server.url, server.key ?? "", webhook.id);
      expect(() => new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();
      expect(() =>
        new Webhook(secret).verify(got.body.replace("1", "2"), got.headers as Record<string, string>),
      ).toThrow();

      // The EVENT column is the event's id (the emitter is FROM), as the webhook-id header says.
      const deliveries = await pd(["webhooks", "deliveries", "receiver"], { cwd, env });
      const [header, row] = deliveries.stdout.split("\n");
      expect(header).toMatch(/ EVENT +FROM$/);
      expect(row).toMatch(new RegExp(`^dlv_\\w+ +succeeded .* ${got.headers["webhook-id"]} +${hello?.id}$`));
      // A test event: signed like a delivery, answered at once, not a delivery.
      const tested = await pd(["webhooks", "test", "receiver"], { cwd, env });
      expect(tested.stdout).toMatch(
        /^✔ http:\/\/127\.0\.0\.1:\d+\/h answered 200 in \d+ ms \(test event evt_\w+\)$/m,
      );
      const test = hook.requests[1];
      expect(test?.headers["x-hookline-event-name"]).toBe("hookline.test");
      expect(() =>
        new Webhook(secret).verify(test?.body ?? "", test?.headers as Record<string, string>),
      ).not.toThrow();
      const after1 = json<unknown[]>(
        (await pd(["webhooks", "deliveries", "receiver", "--json"], { cwd, env })).stdout,
      );
      expect(after1).toHaveLength(1);

      const events = await pd(["events", "hello", "-n", "1"], { cwd, env });
      expect(events.code).toBe(0);
      expect(events.stdout).toContain("emit POST /");
      expect(events.stdout).toContain('{"n":1}');
      const eventsJson = json<Array<{ event: unknown }>>(
        (await pd(["events", "hello", "-n", "1", "--json"], { cwd, env })).stdout,
      );
      expect(eventsJson).toHaveLength(1);
      expect(eventsJson[0]?.event).toEqual({ n: 1 });

      const logs = await pd(["logs", "hello"], { cwd, env });
      expect(logs.stdout).toContain("hello: request #1: POST /");
      const logsJson = json<{ message: string }>(
        (await pd(["logs", "hello", "--json"], { cwd, env })).stdout.trim().split("\n")[0] ?? "",
      );
      expect(logsJson.message).toBe("hello: request #1: POST /");

      const updated = json<{ configured_props: Record<string, unknown> }>(
        (await pd(["update", "hello", "--prop", "greeting=hi", "--json"], { cwd, env })).stdout,
      );
      expect(updated.configured_props.greeting).toBe("hi");

      const table = await pd(["list", "subscriptions"], { cwd, env });
      expect(table.stdout).toContain(webhook.id);
      // Webhooks are named by id or by name.
      expect((await pd(["subscriptions", "delete", "hello", "receiver"], { cwd, env })).code).toBe(0);
      expect((await pd(["webhooks", "delete", "receiver"], { cwd, env })).code).toBe(0);
      expect((await pd(["delete", "hello"], { cwd, env })).code).toBe(0);
      const after = json<SourceRow[]>((await pd(["list", "sources", "--json"], { cwd, env })).stdout);
      expect(after.find((s) => s.name === "hello")).toBeUndefined();
      expect(
        json<unknown[]>((await pd(["list", "webhooks", "--json"], { cwd, env })).stdout),
      ).not.toContainEqual(expect.objectContaining({ id: webhook.id }));
    } finally {
      await hook.close();
    }
  }, 120_000);

  it("exits 1 with the API's code and message: unknown ids, bad and missing prop values (named), usage, server down", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "props.mjs"), PROPS_COMPONENT);
    const good = ["--prop", "count=2", "--prop", "color=red", "--prop", "region=eu-1", "--prop", "token=t"];

    const missing = await pd(["delete", "nope"], { cwd: dir, env });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/^not_found: .*nope/);
    const unknownId = await pd(["events", "dc_00000000000000000000000000"], { cwd: dir, env });
    expect(unknownId.code).toBe(1);
    expect(unknownId.stderr).toMatch(/^not_found: .*dc_00000000000000000000000000/);
    expect(unknownId.stdout).toBe("");

    // A bad value: the message and the problem lines name the prop.
    const low = await pd(["deploy", "props.mjs", ...good, "--prop", "count=0"], { cwd: dir, env });
    expect(low.code).toBe(1);
    expect(low.stderr).toMatch(/^invalid_prop_value: Invalid props: count: /m);
    expect(low.stderr).toMatch(/^ {2}- count: /m);
    const color = await pd(["deploy", "props.mjs", ...good, "--prop", "color=purple"], { cwd: dir, env });
    expect(color.code).toBe(1);
    expect(color.stderr).toMatch(/^invalid_prop_value: Invalid props: color: /m);
    // Not on a terminal, missing required props are an error naming each of them (no prompt).
    const none = await pd(["deploy", "props.mjs"], { cwd: dir, env });
    expect(none.code).toBe(1);
    for (const name of ["count", "color", "region", "token"]) expect(none.stderr).toMatch(`  - ${name}: `);
    expect(none.stderr).not.toMatch(/ {2}- (note|http): /);
    expect(
      json<SourceRow[]>((await pd(["list", "sources", "--json"], { cwd: dir, env })).stdout),
    ).not.toContainEqual(expect.objectContaining({ name: "Props Demo" }));

    const bad = await pd(["update", "x"], { cwd: dir, env });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^usage: /);
    const noFile = await pd(["deploy", "nothing-here.mjs"], { cwd: dir, env });
    expect(noFile.code).toBe(1);
    expect(noFile.stderr).toMatch(/^file_not_found: cannot read nothing-here\.mjs/m);

    const port = await closedPort();
    const downEnv = { ...env, HOOKLINE_BASE_URL: `http://127.0.0.1:${port}` };
    for (const args of [
      ["list", "sources"],
      ["deploy", "props.mjs", ...good],
    ]) {
      const down = await pd(args, { cwd: dir, env: downEnv });
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(
        new RegExp(
          `^server_unreachable: cannot reach the Hookline server at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)\\. Is \`pd serve\` running\\?`,
          "m",
        ),
      );
      expect(down.stderr).not.toContain("    at ");
    }
  }, 120_000);

  it("suggests what was meant (commands, actions, options, kinds, names), names an option as typed, and every --help shows examples", async () => {
    const dir = tempDir();
    const run = (args: string[]) => pd(args, { cwd: dir, env });
    expect((await run(["init", "source", "typo-greeter"])).code).toBe(0);
    expect((await run(["deploy", "typo-greeter.mjs", "--name", "typo-greeter"])).code).toBe(0);
    const hook = await receiver();
    try {
      expect((await run(["webhooks", "create", hook.url, "--name", "typo-receiver"])).code).toBe(0);
      const cases: Array<[string[], RegExp]> = [
        [["depoly", "x.mjs"], /^usage: unknown command "depoly" \(did you mean "deploy"\?\)/],
        [
          ["webhooks", "delivries", "x"],
          /^usage: unknown action "delivries" \(did you mean "deliveries"\?\)/,
        ],
        [["subscriptions", "craete"], /^usage: unknown action "craete" \(did you mean "create"\?\)/],
        [
          ["events", "x", "--limt", "5"],
          /^usage: pd events: unknown option --limt \(did you mean "--limit"\?\)/,
        ],
        [["list", "sorces"], /^usage: cannot list "sorces" \(did you mean "sources"\?\)/],
        [
          ["webhooks", "deliveries", "typo-reciever"],
          /^not_found: .*typo-reciever.* \(did you mean "typo-receiver"\?\)/,
        ],
        [["events", "typo-greter"], /^not_found: No source typo-greter .* \(did you mean "typo-greeter"\?\)/],
        [["events", "hello", "-n", "500"], /^usage: -n must be an integer from 1 to 100$/m],
        [["events", "hello", "--limit", "500"], /^usage: --limit must be an integer from 1 to 100$/m],
      ];
      for (const [args, expected] of cases) {
        const result = await run(args);
        expect([args, result.code, result.stderr]).toEqual([args, 1, expect.stringMatching(expected)]);
      }
    } finally {
      await hook.close();
    }
    // Every command's help ends with examples of itself.
    const help = await run(["--help"]);
    const names = [...help.stdout.matchAll(/^ {2}(\w+) {2,}/gm)].map((m) => m[1] as string);
    expect(names.length).toBeGreaterThan(15);
    for (const name of names) {
      const page = await run([name, "--help"]);
      expect(page.stdout, name).toMatch(new RegExp(`\\nExamples:\\n( {2}pd ${name}\\b.*\\n)+$`));
    }
  }, 120_000);

  it("pd login saves a profile with mode 600 that later commands use", async () => {
    const dir = tempDir();
    const loginEnv = baseEnv({ XDG_CONFIG_HOME: join(dir, "config") });
    const login = await pd(
      ["login", "--api-key", server.key ?? "", "--base-url", server.url, "-p", "local"],
      { cwd: dir, env: loginEnv },
    );
    expect(login.code).toBe(0);
    const path = join(dir, "config", "hookline", "config");
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(json<{ profiles: Record<string, unknown> }>(readFileSync(path, "utf8")).profiles.local).toEqual({
      apiKey: server.key,
      baseUrl: server.url,
    });
    const list = await pd(["list", "webhooks", "-p", "local", "--json"], { cwd: dir, env: loginEnv });
    expect(list.code).toBe(0);
    const wrong = await pd(["login", "--api-key", "hl_wrong", "--base-url", server.url, "-p", "bad"], {
      cwd: dir,
      env: loginEnv,
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^unauthorized: /);
  }, 120_000);

  it("pd dev redeploys on save with the same id and streams events until Ctrl-C", async () => {
    const dir = tempDir();
    expect((await pd(["init", "source", "devsrc"], { cwd: dir, env })).code).toBe(0);
    const dev = spawnPd(["dev", "devsrc.mjs"], { cwd: dir, env });
    const id = await waitFor(
      () => /Deployed devsrc \((dc_\w+)\)/.exec(dev.output.stdout)?.[1],
      60_000,
      "pd dev to deploy",
    );
    // The endpoint line may arrive in a later chunk than the "Deployed" line.
    const endpoint = await waitFor(
      () => /endpoint: (\S+)\n/.exec(dev.output.stdout)?.[1],
      60_000,
      "the endpoint line",
    );
    await waitFor(() => dev.output.stderr.includes("Streaming logs and events"), 60_000, "the streams");
    await post(endpoint, { live: true });
    await waitFor(() => dev.output.stdout.includes('[event]   {"live":true}'), 60_000, "the streamed event");
    await waitFor(() => dev.output.stdout.includes("[log]"), 60_000, "the streamed log");
    const file = join(dir, "devsrc.mjs");
    writeFileSync(file, readFileSync(file, "utf8").replace(": request #", ": changed request #"));
    await waitFor(() => dev.output.stdout.includes(`Redeployed devsrc (${id})`), 60_000, "the redeploy");
    // The redeployed code runs under the same id, with the same db.
    await post(endpoint, { after: true });
    await waitFor(
      () => dev.output.stdout.includes("hello: changed request #2"),
      60_000,
      "the new code's log",
    );
    dev.child.kill("SIGINT");
    expect(await dev.exited).toBe(0);
    const sources = json<SourceRow[]>((await pd(["list", "sources", "--json"], { cwd: dir, env })).stdout);
    expect(sources.filter((s) => s.name === "devsrc").map((s) => s.id)).toEqual([id]);
  }, 120_000);

  it("pd logs -f and pd events -f stream new lines and events until Ctrl-C", async () => {
    const dir = tempDir();
    expect((await pd(["init", "source", "streamer"], { cwd: dir, env })).code).toBe(0);
    const source = json<SourceRow>(
      (await pd(["deploy", "streamer.mjs", "--name", "streamer", "--json"], { cwd: dir, env })).stdout,
    );
    const logs = spawnPd(["logs", "streamer", "-f"], { cwd: dir, env });
    const events = spawnPd(["events", "streamer", "-f"], { cwd: dir, env });
    // The notes come once the streams are connected.
    await waitFor(() => logs.output.stderr.includes("Following logs of streamer"), 60_000, "logs -f");
    await waitFor(() => events.output.stderr.includes("Following events of streamer"), 60_000, "events -f");
    expect(logs.output.stdout).toBe("");
    await waitFor(() => events.output.stdout.includes("(no events yet)"), 60_000, "the empty list");
    // Each request now is a live log line and a live event.
    for (let n = 1; n <= 2; n++) {
      expect(await post(source.endpoint_url, { live: n })).toBe(200);
      await waitFor(
        () => logs.output.stdout.includes(`hello: request #${n}: POST /`),
        60_000,
        `log line ${n}`,
      );
      await waitFor(() => events.output.stdout.includes(`{"live":${n}}`), 60_000, `event ${n}`);
    }
    expect(events.output.stdout.match(/emit POST \//g)).toHaveLength(2);
    logs.child.kill("SIGINT");
    events.child.kill("SIGINT");
    expect(await logs.exited).toBe(0);
    expect(await events.exited).toBe(0);
  }, 120_000);

  it("colour only on a terminal: none when piped, none with NO_COLOR", async () => {
    const plainEnv = { ...env };
    delete plainEnv.NO_COLOR;
    const piped = await pd(["list", "sources"], { cwd, env: plainEnv });
    expect(piped.code).toBe(0);
    expect(piped.stdout).toMatch(/^ID +SLUG +NAME/);
    expect(piped.stdout).not.toMatch(ANSI);
    const pipedError = await pd(["delete", "nope"], { cwd, env: plainEnv });
    expect(pipedError.stderr).not.toMatch(ANSI);
    if (!HAS_SCRIPT) return;
    const tty = await pdTty(["list", "sources"], { cwd, env: plainEnv });
    expect(tty.code).toBe(0);
    expect(tty.screen).toContain("\u001b[1mID");
    const noColor = await pdTty(["list", "sources"], { cwd, env: { ...plainEnv, NO_COLOR: "1" } });
    expect(noColor.code).toBe(0);
    expect(noColor.screen).toMatch(/ID +SLUG +NAME/);
    expect(noColor.screen).not.toMatch(ANSI);
  }, 120_000);

  it.skipIf(!HAS_SCRIPT)(
    "pd deploy on a terminal asks for missing required props: options and async options as lists, secrets hidden",
    async () => {
      const dir = tempDir();
      writeFileSync(join(dir, "props.mjs"), PROPS_COMPONENT);
      const ttyEnv = { ...env };
      delete ttyEnv.NO_COLOR;
      const run = await pdTty(["deploy", "props.mjs", "--name", "tty-props"], { cwd: dir, env: ttyEnv }, [
        { when: /Count \(count\).*\[1\.\.\]: /, type: "0\r" }, // below min: asked again
        { when: /enter 1 or more[\s\S]*Count \(count\).*: /, type: "3\r" },
        { when: /3\) blue\s+Choose 1-3: /, type: "2\r" },
        { when: /US \(us-1\)\s+Choose 1-2: /, type: "2\r" },
        { when: /Token \(token\).*: /, type: "s3cr\u007fet\r" },
      ]);
      expect(run.code).toBe(0);
      const screen = run.screen;
      for (const step of [
        "Bundling props.mjs",
        "Saving the component",
        "Fetching options for region",
        "Deploying",
      ]) {
        expect(screen).toContain(step);
      }
      expect(screen).toMatch(/4 required props to fill in/);
      expect(screen).toContain("Europe (eu-1)");
      expect(screen).toMatch(/Deployed .*tty-props.* \(dc_\w+\)/);
      expect(screen).toMatch(ANSI); // colour on a terminal
      expect(screen).not.toMatch(/s3c|et\r/); // the secret is not echoed
      expect(screen).not.toMatch(/note/); // optional props are not asked

      const sources = json<SourceRow[]>((await pd(["list", "sources", "--json"], { cwd: dir, env })).stdout);
      const deployed = sources.find((s) => s.name === "tty-props");
      // The async options got the values answered so far (color), the secret is masked.
      expect(deployed?.configured_props).toMatchObject({
        count: 3,
        color: "green",
        region: "us-1-green",
        token: "********",
      });
      expect(await post(deployed?.endpoint_url ?? "", {})).toBe(200);
      const events = json<Array<{ event: unknown }>>(
        (await pd(["events", "tty-props", "-n", "1", "--json"], { cwd: dir, env })).stdout,
      );
      // "s3cr", backspace, "et": the source got the edited secret.
      expect(events[0]?.event).toEqual({ count: 3, color: "green", region: "us-1-green", tokenLength: 5 });

      // --prop answers are not asked again; Ctrl-C at a prompt cancels with exit code 1.
      const cancelled = await pdTty(
        ["deploy", "props.mjs", "--name", "cancelled", "--prop", "count=1", "--prop", "color=red"],
        { cwd: dir, env: { ...env } },
        [{ when: /Choose 1-2: /, type: "\u0003" }],
      );
      expect(cancelled.code).toBe(1);
      expect(cancelled.screen).toContain("2 required props to fill in");
      expect(cancelled.screen).not.toContain("Count");
      expect(cancelled.screen).toMatch(/interrupted: cancelled at a prompt/);
      // --no-input: no questions on a terminal either; the API names what is missing.
      const noInput = await pdTty(["deploy", "props.mjs", "--no-input"], { cwd: dir, env: { ...env } });
      expect(noInput.code).toBe(1);
      expect(noInput.screen).toMatch(/^invalid_prop_value: Invalid props: count: /m);
      expect(noInput.screen).not.toContain("Choose");
      const after = json<SourceRow[]>((await pd(["list", "sources", "--json"], { cwd: dir, env })).stdout);
      expect(after.find((s) => s.name === "cancelled")).toBeUndefined();
    },
    120_000,
  );

  it("pd deploy <url> deploys code the server fetches", async () => {
    const code = readFileSync(join(import.meta.dirname, "..", "examples", "hello.mjs"), "utf8");
    const files = createServer((req, res) => {
      if (req.url === "/hello.mjs") res.writeHead(200, { "content-type": "text/javascript" }).end(code);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => files.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
    try {
      const deployed = await pd(["deploy", `${base}/hello.mjs`, "--name", "from-url", "--json"], {
        cwd,
        env,
      });
      expect(deployed.code).toBe(0);
      expect(json<SourceRow>(deployed.stdout).name).toBe("from-url");
      // The example emits a first event when deployed.
      const events = await pd(["events", "from-url", "-n", "1"], { cwd, env });
      expect(events.stdout).toContain("hello from Hookline");
      const gone = await pd(["deploy", `${base}/missing.mjs`], { cwd, env });
      expect(gone.code).toBe(1);
      expect(gone.stderr).toMatch(/^\w+: .*404/m);
    } finally {
      await new Promise((r) => files.close(r));
    }
  }, 120_000);
  it("pd publish publishes private or public (--registry); pd deploy takes a registry key[@version]", async () => {
    const dir = tempDir();
    const greeter = (version: string, key = "demo-greeter") => `export default {
  key: "${key}",
  name: "Greeter",
  version: "${version}",
  props: { http: "$.interface.http", greeting: { type: "string", label: "Greeting" } },
  async run() {
    this.$emit({ greeting: this.greeting, version: "${version}" });
  },
};
`;
    const file = join(dir, "greeter.mjs");
    writeFileSync(file, greeter("1.0.0"));
    const first = await pd(["publish", "greeter.mjs", "--json"], { cwd: dir, env });
    expect(first.code).toBe(0);
    const v1 = json<{ id: string; key: string; version: string; visibility: string }>(first.stdout);
    expect(v1).toMatchObject({ key: "demo-greeter", version: "1.0.0", visibility: "private" });
    expect(v1.id).toMatch(/^sc_/);

    // The same key and version again: 409 with the API's code; core's key and semver rules: 422.
    const again = await pd(["publish", "greeter.mjs"], { cwd: dir, env });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^component_version_exists: /m);
    writeFileSync(join(dir, "bad-key.mjs"), greeter("1.0.0", "greeter"));
    const badKey = await pd(["publish", "bad-key.mjs", "--registry"], { cwd: dir, env });
    expect(badKey.code).toBe(1);
    expect(badKey.stderr).toMatch(/^invalid_registry_key: /m);
    expect(badKey.stderr).toMatch(/^ {2}- key: /m);
    // SPEC: the version is free form, semantic only for the (public) registry.
    writeFileSync(join(dir, "bad-version.mjs"), greeter("1.0"));
    const badVersion = await pd(["publish", "bad-version.mjs", "--registry"], { cwd: dir, env });
    expect(badVersion.code).toBe(1);
    expect(badVersion.stderr).toMatch(/^invalid_version: /m);
    writeFileSync(
      join(dir, "note.mjs"),
      `export default { key: "demo-note", name: "Note", version: "free form", type: "action",
        props: {}, async run() { return "noted"; } };\n`,
    );
    const freeForm = await pd(["publish", "note.mjs", "--json"], { cwd: dir, env });
    expect(freeForm.code, freeForm.stderr).toBe(0);
    expect(
      json<{ key: string; version: string; visibility: string; type: string }>(freeForm.stdout),
    ).toMatchObject({ key: "demo-note", version: "free form", visibility: "private", type: "action" });
    const notFile = await pd(["publish", "greeter"], { cwd: dir, env });
    expect(notFile.code).toBe(1);
    expect(notFile.stderr).toMatch(/^file_not_found: /m);

    writeFileSync(file, greeter("1.1.0"));
    const pub = await pd(["publish", "greeter.mjs", "--registry"], { cwd: dir, env });
    expect(pub.code).toBe(0);
    expect(pub.stderr).toContain("Publishing (public)");
    expect(pub.stdout).toMatch(/Published Greeter as demo-greeter@1\.1\.0 to the public registry \(sc_\w+\)/);
    expect(pub.stdout).toContain("deploy it: pd deploy demo-greeter@1.1.0");
    const registry = json<Array<{ key: string; version: string; visibility: string }>>(
      (await pd(["list", "registry", "--json"], { cwd: dir, env })).stdout,
    );
    expect(registry).toContainEqual(
      expect.objectContaining({ key: "demo-greeter", version: "1.1.0", visibility: "public" }),
    );
    expect((await pd(["list", "registry"], { cwd: dir, env })).stdout).toMatch(/^KEY +VERSION/);

    // Deploy by key: pinned, or the newest version.
    const pinned = await pd(
      ["deploy", "demo-greeter@1.0.0", "--name", "greeter-1", "--prop", "greeting=hey", "--json"],
      {
        cwd: dir,
        env,
      },
    );
    expect(pinned.code).toBe(0);
    const pinnedSource = json<SourceRow & { component_id: string }>(pinned.stdout);
    expect(pinnedSource.component_id).toBe(v1.id);
    expect(await post(pinnedSource.endpoint_url, {})).toBe(200);
    const emitted = json<Array<{ event: unknown }>>(
      (await pd(["events", "greeter-1", "-n", "1", "--json"], { cwd: dir, env })).stdout,
    );
    expect(emitted[0]?.event).toEqual({ greeting: "hey", version: "1.0.0" });
    const missingProp = await pd(["deploy", "demo-greeter", "--name", "greeter-x"], { cwd: dir, env });
    expect(missingProp.code).toBe(1);
    expect(missingProp.stderr).toMatch(/^invalid_prop_value: .*greeting/m);
    const unknown = await pd(["deploy", "demo-nothing"], { cwd: dir, env });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(
      /^not_found: .*demo-nothing.*\(and there is no file named demo-nothing here\)/m,
    );

    if (HAS_SCRIPT) {
      // On a terminal the registry entry's props are asked for.
      const tty = await pdTty(["deploy", "demo-greeter", "--name", "greeter-2"], { cwd: dir, env }, [
        { when: /Greeting \(greeting\): /, type: "yo\r" },
      ]);
      expect(tty.code).toBe(0);
      expect(tty.screen).toContain("Looking up demo-greeter in the registry");
      const sources = json<Array<SourceRow & { component_id: string }>>(
        (await pd(["list", "sources", "--json"], { cwd: dir, env })).stdout,
      );
      const second = sources.find((s) => s.name === "greeter-2");
      expect(second?.configured_props.greeting).toBe("yo");
      expect(second?.component_id).not.toBe(v1.id); // the newest version, 1.1.0
    }

    // The scaffolds publish and deploy as they are: an action is published, an app source deploys.
    expect((await pd(["init", "action", "greet"], { cwd: dir, env })).code).toBe(0);
    const action = await pd(["publish", "greet.mjs"], { cwd: dir, env });
    expect(action.code).toBe(0);
    expect(action.stdout).toContain("Published Greet as custom-greet@0.1.0 to this workspace (private)");
    expect(action.stdout).toContain("workflows use it by its key: custom-greet@0.1.0");
    const deployAction = await pd(["deploy", "greet.mjs"], { cwd: dir, env });
    expect(deployAction.stdout).toContain("publish it with: pd publish greet.mjs");
    expect((await pd(["init", "app", "acme"], { cwd: dir, env })).code).toBe(0);
    const appSource = await pd(["deploy", "acme.mjs", "--name", "acme", "--json"], { cwd: dir, env });
    expect(appSource.code).toBe(0);
    expect(json<SourceRow>(appSource.stdout).configured_props.label).toBe("acme");
    const appPublished = await pd(["publish", "acme.mjs", "--json"], { cwd: dir, env });
    expect(json<{ key: string }>(appPublished.stdout).key).toBe("acme-new-request");
  }, 120_000);

  it("pd deploy shows the SPEC rules a component breaks as warnings and deploys it; pd publish --registry refuses them", async () => {
    const dir = tempDir();
    // A default on a required prop, and a key that is not the slugified name ("[Numbers] Format Number").
    writeFileSync(
      join(dir, "lenient.mjs"),
      `export default {
  key: "formatting-format-number", name: "[Numbers] Format Number", version: "0.0.1",
  props: { formatting: { type: "app", app: "formatting" }, digits: { type: "integer", label: "Digits", default: 2 } },
  run() { this.$emit({ digits: this.digits }); },
};\n`,
    );
    const deployed = await pd(["deploy", "lenient.mjs", "--name", "lenient", "--json"], { cwd: dir, env });
    expect(deployed.code).toBe(0);
    expect(deployed.stderr).toMatch(/⚠ warning props\.digits\.default: .*\(default_on_required\)/);
    expect(json<SourceRow>(deployed.stdout).configured_props.digits).toBe(2);
    // Private publishing takes the key as it is; the public registry is strict.
    const own = await pd(["publish", "lenient.mjs", "--json"], { cwd: dir, env });
    expect(own.code).toBe(0);
    expect(json<{ key: string }>(own.stdout).key).toBe("formatting-format-number");
    expect(own.stderr).toContain("(default_on_required)");
    const pub = await pd(["publish", "lenient.mjs", "--registry"], { cwd: dir, env });
    expect(pub.code).toBe(1);
    expect(pub.stderr).toMatch(/^invalid_registry_key: /m);
    expect(pub.stderr).toMatch(/^ {2}- props\.digits\.default: /m);
    expect(pub.stderr).toMatch(/^ {2}- key: .*formatting-numbers-format-number/m);
  }, 120_000);
});

describe.concurrent("pd serve with its data folder", () => {
  it("keeps everything across a restart on another port, which pd in the folder finds, and sends a pending delivery", async () => {
    // A user's folder: the repository's files (the example source) and the server's default data
    // folder ./.hookline, as `npm start` makes it. (getting-started.test.ts runs the README.)
    const dir = tempDir();
    symlinkSync(join(ROOT, "packages"), join(dir, "packages"));
    const env = baseEnv({ XDG_CONFIG_HOME: join(dir, "config") });
    const first = await serve(["--allow-private-urls"], { cwd: dir, env }, 90_000);
    const key = first.key ?? "";
    expect(key).toMatch(/^hl_/);
    const dataDir = join(dir, ".hookline");
    expect(first.output.stdout).toContain(`saved in ${join(dataDir, "api-key")}`);
    expect(readFileSync(join(dataDir, "api-key"), "utf8").trim()).toBe(key);
    expect(statSync(join(dataDir, "api-key")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, "secrets.key")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dataDir, "url"), "utf8").trim()).toBe(first.url);

    // The receiver is down during the first run.
    const port = await closedPort();
    const hook = receiverOn(port);
    const hookUrl = `http://127.0.0.1:${port}/webhooks`;
    // No URL nor key in the environment: pd finds both in ./.hookline.
    const outputs = [];
    for (const args of [
      ["deploy", "packages/cli/examples/hello.mjs", "--name", "hello"],
      ["webhooks", "create", hookUrl, "--name", "my-receiver"],
      ["subscriptions", "create", "hello", "my-receiver"],
      ["events", "hello", "-n", "1"],
    ]) {
      const result = await pd(args, { cwd: dir, env });
      expect({ args, ...result }).toMatchObject({ code: 0 });
      outputs.push(result.stdout);
    }
    const [deploy, webhook, subscribe, events] = outputs;
    const sourceId = /Deployed hello \((dc_\w+)\)/.exec(deploy ?? "")?.[1] ?? "";
    expect(sourceId).toMatch(/^dc_/);
    const endpoint = /endpoint: (\S+)/.exec(deploy ?? "")?.[1] ?? "";
    const webhookId = /Created webhook (wh_\w+)/.exec(webhook ?? "")?.[1] ?? "";
    expect(webhookId).toMatch(/^wh_/);
    expect(subscribe).toContain(`Subscribed ${webhookId} to ${sourceId}`);
    expect(events).toContain("emit hello from Hookline");
    expect(events).toContain('"deployed":true'); // jsonb orders keys its own way

    // An event for the webhook while its receiver is down: the first attempt fails.
    expect(await post(endpoint, { hi: 1 })).toBe(200);
    const authed = { authorization: `Bearer ${key}` };
    let failed: { status: string; attempts: number; last_error: string | null } | undefined;
    await waitForAsync(async () => {
      const res = await fetch(`${first.url}/v1/webhooks/${webhookId}/deliveries`, { headers: authed });
      failed = ((await res.json()) as { data: Array<NonNullable<typeof failed>> }).data[0];
      // Attempts count from the claim: wait for the first one to end, not merely to start.
      return failed !== undefined && failed.attempts >= 1 && failed.status !== "delivering";
    }, 60_000);
    expect(failed).toMatchObject({ status: "pending" });
    expect(failed?.last_error).toBeTruthy();
    expect(await stop(first)).toBe(0);
    // Its log (JSON lines, stderr is not a terminal) says it stopped on the signal.
    const stopping = first.output.stderr
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { signal?: string; msg?: string })
      .find((entry) => entry.signal === "SIGTERM");
    expect(stopping?.msg).toMatch(/^stopping/);

    // Second run, same folder, receiver up: everything is there and the delivery goes out.
    await hook.start();
    let secondPort = await closedPort();
    while (first.url.endsWith(`:${secondPort}`)) secondPort = await closedPort();
    const second = await serve(
      ["--allow-private-urls", "--port", String(secondPort)],
      { cwd: dir, env },
      90_000,
    );
    try {
      expect(second.key).toBeUndefined(); // the key is shown only on the first start
      expect(second.output.stdout).toContain(join(dataDir, "api-key"));
      const got = await waitFor(() => hook.requests[0], 60_000, "the pending delivery after the restart");
      expect(JSON.parse(got.body)).toEqual({ hi: 1 });
      const secret = await webhookSecret(second.url, key, webhookId);
      expect(() => new Webhook(secret).verify(got.body, got.headers as Record<string, string>)).not.toThrow();

      // Another port: pd finds the new URL in ./.hookline/url.
      expect(readFileSync(join(dataDir, "url"), "utf8").trim()).toBe(second.url);
      const list = async (kind: string) =>
        JSON.parse((await pd(["list", kind, "--json"], { cwd: dir, env })).stdout) as Array<{
          id: string;
        }>;
      expect((await list("sources")).map((s) => s.id)).toEqual([sourceId]);
      expect((await list("webhooks")).map((w) => w.id)).toEqual([webhookId]);
      expect(await list("subscriptions")).toEqual([
        expect.objectContaining({ emitter_id: sourceId, listener_id: webhookId }),
      ]);
      const kept = await pd(["events", "hello", "-n", "2", "--json"], { cwd: dir, env });
      expect((JSON.parse(kept.stdout) as Array<{ event: unknown }>).map((e) => e.event)).toEqual([
        { hi: 1 },
        { greeting: "hello", deployed: true },
      ]);
      // The source still runs: its db kept its state, and new events are delivered at once.
      expect(await post(endpoint.replace(first.url, second.url), { hi: 2 })).toBe(200);
      await waitFor(() => hook.requests[1], 60_000, "a new delivery");
      expect(hook.requests.map((r) => JSON.parse(r.body))).toEqual([{ hi: 1 }, { hi: 2 }]);
    } finally {
      expect(await stop(second)).toBe(0);
      await hook.close();
    }
  }, 240_000);
});

// Starts PGlite servers one after the other (not concurrently with the walkthrough above), so that a
// loaded machine does not turn each start into a timeout.
describe("pd serve refusing to start", () => {
  it("a second pd serve on the same data folder, or one with another secrets key, refuses to start", async () => {
    const dir = tempDir();
    const env = baseEnv({ XDG_CONFIG_HOME: join(dir, "config") });
    const dataDir = join(dir, "data");
    const first = await serve(["--data-dir", dataDir], { cwd: dir, env }, 60_000);
    try {
      const second = await pd(["serve", "--port", "0", "--data-dir", dataDir], { cwd: dir, env });
      expect(second.code).toBe(1);
      expect(second.stderr).toContain("data_dir_locked");
      expect(second.stderr).toContain(`in use by process ${first.child.pid}`);
      // The first one is unharmed.
      const res = await fetch(`${first.url}/v1/webhooks`, {
        headers: { authorization: `Bearer ${first.key}` },
      });
      expect(res.status).toBe(200);
    } finally {
      expect(await stop(first)).toBe(0);
    }
    // Stopped, it released the folder. A start with another secrets key than the data's is refused.
    const wrongKey = await pd(["serve", "--port", "0", "--data-dir", dataDir], {
      cwd: dir,
      env: { ...env, HOOKLINE_SECRETS_KEY: "not-the-key-of-this-data" },
    });
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toContain("secrets_key_mismatch");
    expect(wrongKey.stderr).toContain("HOOKLINE_SECRETS_KEY");
    // With its own key (secrets.key in the folder), the next start works.
    const again = await serve(["--data-dir", dataDir], { cwd: dir, env }, 60_000);
    expect(await stop(again)).toBe(0);
  }, 150_000);
});
