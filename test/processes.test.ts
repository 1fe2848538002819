// test/setup/: every test process carries the run's and its file's marks, and a sweep finds and
// kills what a test started, grandchildren and orphans included (vitest.config.ts runs the sweeps
// after each file and after the run, which fails naming any process that outlived it).
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { FILE_MARK, marked, RUN_MARK, sweep } from "./setup/processes.js";

describe.skipIf(!existsSync("/proc"))("processes started by tests", () => {
  it("carry the run's and the file's marks", () => {
    expect(process.env[RUN_MARK]).toMatch(/^[0-9a-f-]{36}$/);
    expect(process.env[FILE_MARK]).toMatch(/^[0-9a-f-]{36}$/);
    expect(process.env[FILE_MARK]).not.toBe(process.env[RUN_MARK]);
  });

  it("are found by their mark and killed, an orphaned grandchild too", async () => {
    const mark = `sweep-${process.pid}-${Date.now()}`;
    // sh starts a sleep in the background and exits: the sleep is orphaned (reparented).
    const sh = spawn("sh", ["-c", "sleep 300 & echo $!"], {
      env: { ...process.env, SWEEP_TEST: mark },
      stdio: ["ignore", "pipe", "ignore"],
    });
    let out = "";
    sh.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    await new Promise((resolve) => sh.on("exit", resolve));
    const orphan = Number(out.trim());
    expect(orphan).toBeGreaterThan(0);
    // sh prints the pid once it has forked, maybe before the child has become `sleep` (exec): until
    // then the child's command line is still sh's.
    const commandOf = () => marked("SWEEP_TEST", mark).find((p) => p.pid === orphan)?.command;
    for (let i = 0; i < 500 && commandOf() !== "sleep 300"; i++)
      await new Promise((ok) => setTimeout(ok, 10));
    expect(marked("SWEEP_TEST", mark).map((p) => [p.pid, p.command])).toEqual([[orphan, "sleep 300"]]);
    const killed = await sweep("SWEEP_TEST", mark, () => true, 0);
    expect(killed.map((p) => p.pid)).toEqual([orphan]);
    expect(marked("SWEEP_TEST", mark)).toEqual([]);
    // Gone, or a zombie until its new parent reaps it.
    const state = existsSync(`/proc/${orphan}/stat`)
      ? readFileSync(`/proc/${orphan}/stat`, "utf8").replace(/^.*\) /, "")[0]
      : "gone";
    expect(["gone", "Z", "X"]).toContain(state);
  });
});
