/**
 * docs/getting-started.md, run as written: each fenced block carries a `<!-- test: ... -->` line
 * saying what it is (setup, the server, a file to save, a command left running, commands).
 */
import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { baseEnv, closedPort, ROOT, runLine, serve, startLine, stop, tempDir, waitFor } from "./_helpers.js";

/** The page's blocks in order, with their test role. */
function blocks(): Array<{ role: string; text: string }> {
  const page = readFileSync(join(ROOT, "docs", "getting-started.md"), "utf8");
  return [...page.matchAll(/<!-- test: ([^>]+?) -->\n```\w+\n([\s\S]*?)```/g)].map((m) => ({
    role: m[1] as string,
    text: m[2] as string,
  }));
}

const lines = (text: string) => text.split("\n").filter((l) => l.trim() !== "" && !l.trim().startsWith("#"));

describe("docs/getting-started.md", () => {
  it("takes a newcomer from the clone to an event delivered to their receiver and verified there", async () => {
    const page = blocks();
    expect(page.map((b) => b.role)).toEqual([
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
    expect(lines(page[0]?.text ?? "")).toEqual([
      "git clone <the Hookline repository URL> hookline && cd hookline",
      "npm install",
      "npx pd --help",
    ]);
    expect(lines(page[1]?.text ?? "")).toEqual(["npx pd serve --dev"]);

    // The user's folder: a checkout, where `standardwebhooks` resolves.
    const dir = tempDir("getting-started-");
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
    const env = baseEnv({ XDG_CONFIG_HOME: join(dir, "config") });
    const server = await serve(["--dev"], { cwd: dir, env }, 90_000);
    // The client finds the key in ./.hookline as the page says; the URL is this server's port.
    const cli = { ...env, HOOKLINE_BASE_URL: server.url };
    const receiverPort = await closedPort();
    // The page uses the default port and :3000; this server and receiver use free ones.
    const local = (line: string, endpoint = "") =>
      line
        .replaceAll("http://127.0.0.1:4100/http/en_...", endpoint)
        .replaceAll("http://127.0.0.1:4100", server.url)
        .replaceAll(":3000", `:${receiverPort}`)
        .replace(".listen(3000,", `.listen(${receiverPort},`);
    let receiver: ReturnType<typeof startLine> | undefined;
    let endpoint = "";
    let workflowLogs = "";
    try {
      for (const block of page.slice(2)) {
        if (block.role.startsWith("file ")) {
          writeFileSync(join(dir, block.role.slice(5)), local(block.text));
          continue;
        }
        if (block.role === "background") {
          const [line] = lines(block.text);
          const started = startLine(local(line ?? ""), dir, cli);
          receiver = started;
          await waitFor(() => started.output.stdout.includes("receiver listening"), 30_000, "the receiver");
          continue;
        }
        for (const line of lines(block.text)) {
          const result = await runLine(local(line, endpoint), dir, cli);
          expect(result.code, `${line}\n${result.stderr}`).toBe(0);
          endpoint ||= /endpoint: (\S+)/.exec(result.stdout)?.[1] ?? "";
          if (line.startsWith("npx pd workflows logs")) workflowLogs = result.stdout;
          // A loopback webhook with --dev: no SSRF warning.
          expect(result.stderr).not.toContain("warning:");
        }
      }
      const output = receiver?.output ?? { stdout: "" };
      const verified = await waitFor(
        () => /^verified (evt_\w+) (.*)$/m.exec(output.stdout),
        60_000,
        "the receiver to verify the delivery",
      );
      expect(JSON.parse(verified?.[2] ?? "")).toEqual({ hello: "world" });
      expect(output.stdout).not.toContain("rejected");
      // Section 7: the workflow ran both steps; its logs show the second step's return value.
      expect(workflowLogs).toContain("HELLO, WORLD!");
      expect(workflowLogs).toContain("Greeted world");
    } finally {
      receiver?.stopGroup();
      expect(await stop(server)).toBe(0);
    }
  }, 240_000);
});
