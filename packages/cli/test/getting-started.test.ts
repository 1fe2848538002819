/**
 * The README's walkthrough and then docs/getting-started.md, run as written in one folder (a
 * newcomer does both in the same clone): each fenced block carries a `<!-- test: ... -->` line
 * saying what it is (setup, the server, a file to save, a command left running, commands).
 */
import { symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  baseEnv,
  closedPort,
  commandLines,
  docBlocks,
  pd,
  ROOT,
  runLine,
  serve,
  startLine,
  stop,
  tempDir,
  waitFor,
} from "./_helpers.js";

describe("README.md's walkthrough, then docs/getting-started.md, in one folder", () => {
  it("deliver every event to each page's receiver, the second page's verified there", async () => {
    const readme = docBlocks("README.md");
    const guide = docBlocks("docs/getting-started.md");
    expect(readme.map((b) => b.role)).toEqual(["server", "background", "commands"]);
    expect(guide.map((b) => b.role)).toEqual([
      "setup",
      "server",
      "commands",
      "commands",
      "file receiver.mjs",
      "background",
      "commands",
      "commands",
      "file greet.yaml",
      "commands",
    ]);
    // The setup is what a fresh clone needs (bin.test.ts covers `npx pd` after `npm install`).
    expect(commandLines(guide[0]?.text ?? "")).toEqual([
      "git clone <the Hookline repository URL> hookline && cd hookline",
      "npm install",
      "npx pd --help",
    ]);
    // Both pages start the server with --dev, which their loopback receivers need; one server
    // runs (a second on the same folder would refuse to start).
    expect(commandLines(readme[0]?.text ?? "")).toEqual(["npm install && npm start -- --dev"]);
    expect(commandLines(guide[1]?.text ?? "")).toEqual(["npx pd serve --dev"]);

    // The user's folder: a checkout (the example files, `standardwebhooks` resolving).
    const dir = tempDir("first-hour-");
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
    symlinkSync(join(ROOT, "packages"), join(dir, "packages"));
    // No URL nor key in the environment: `pd` finds both in ./.hookline, as the pages say.
    const env = baseEnv({ XDG_CONFIG_HOME: join(dir, "config") });
    const server = await serve(["--dev"], { cwd: dir, env }, 90_000);
    // The pages use the default port, :3001 and :3000; this server and the receivers use free ones.
    const [readmePort, guidePort] = [await closedPort(), await closedPort()];
    const local = (line: string, endpoint: string) =>
      line
        .replaceAll("http://127.0.0.1:4100/http/en_...", endpoint)
        .replaceAll("http://127.0.0.1:4100", server.url)
        .replaceAll(":3001/", `:${readmePort}/`)
        .replaceAll(":3000", `:${guidePort}`)
        .replace(".listen(3000,", `.listen(${guidePort},`);
    const receivers: Array<ReturnType<typeof startLine>> = [];
    const stdout: Record<string, string> = {};

    /** Runs a page's blocks from `from` on, as a user types them. */
    async function follow(page: Array<{ role: string; text: string }>, from: number, port: number) {
      let endpoint = "";
      for (const block of page.slice(from)) {
        if (block.role.startsWith("file ")) {
          writeFileSync(join(dir, block.role.slice(5)), local(block.text, endpoint));
          continue;
        }
        if (block.role === "background") {
          const [line] = commandLines(block.text);
          const started = startLine(local(line ?? "", endpoint), dir, { ...env, PORT: String(port) });
          receivers.push(started);
          await waitFor(() => started.output.stdout.includes("receiver listening"), 30_000, "a receiver");
          continue;
        }
        for (const line of commandLines(block.text)) {
          const result = await runLine(local(line, endpoint), dir, env);
          expect(result.code, `${line}\n${result.stderr}`).toBe(0);
          endpoint = /endpoint: (\S+)/.exec(result.stdout)?.[1] ?? endpoint;
          stdout[line] = result.stdout;
          // Loopback webhooks with --dev: no SSRF warning; no name another source bears.
          expect(result.stderr, line).not.toMatch(/warning|also named|was taken/);
        }
      }
    }

    try {
      await follow(readme, 1, readmePort);
      await follow(guide, 2, guidePort);
      const [readmeReceiver, guideReceiver] = receivers.map((r) => r.output);
      // The README's receiver gets its request, the guide's receiver verifies its own.
      const verified = await waitFor(
        () => /^verified (evt_\w+) (.*)$/m.exec(guideReceiver?.stdout ?? "") ?? undefined,
        60_000,
        "the guide's receiver to verify the delivery",
      );
      expect(JSON.parse(verified[2] ?? "")).toEqual({ hello: "world" });
      expect(guideReceiver?.stdout).not.toContain("rejected");
      const received = await waitFor(
        () => /^received (evt_\w+) (.*)$/m.exec(readmeReceiver?.stdout ?? "") ?? undefined,
        60_000,
        "the README's receiver to get the delivery",
      );
      expect(JSON.parse(received[2] ?? "")).toEqual({ hi: 1 });
      // Every delivery to either webhook succeeded; each got exactly its page's event.
      for (const webhook of ["my-receiver", "receiver"]) {
        const deliveries = await pd(["webhooks", "deliveries", webhook, "--json"], { cwd: dir, env });
        const rows = JSON.parse(deliveries.stdout) as Array<{ status: string; event_id: string }>;
        expect(rows.map((r) => r.status)).toEqual(["succeeded"]);
        expect(rows[0]?.event_id).toBe(webhook === "receiver" ? verified[1] : received[1]);
      }

      // What the pages say the commands print.
      const events = Object.entries(stdout).find(([line]) => line.startsWith("npx pd events hello"))?.[1];
      expect(events).toContain('{"hi":1}');
      expect(events).toContain("hello from Hookline");
      const workflowLogs = Object.entries(stdout).find(([line]) => line.startsWith("npx pd workflows logs"));
      expect(workflowLogs?.[1]).toContain("HELLO, WORLD!");
      expect(workflowLogs?.[1]).toContain("Greeted world");
      // `pd list sources` shows the slugs the commands took.
      const list = await pd(["list", "sources"], { cwd: dir, env });
      expect(list.stdout.split("\n")[0]).toMatch(/^ID +SLUG +NAME +ACTIVE +ENDPOINT_URL$/);
      expect(list.stdout).toMatch(/^dc_\w+ +hello +hello +true/m);
      expect(list.stdout).toMatch(/^dc_\w+ +inbox +inbox +true/m);
    } finally {
      for (const receiver of receivers) receiver.stopGroup();
      expect(await stop(server)).toBe(0);
    }
  }, 240_000);
});
