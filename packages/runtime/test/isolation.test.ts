import { afterAll, describe, expect, it } from "vitest";
import { mountCode, testRuntime } from "./_helpers.js";

const runtime = testRuntime({ limits: { runTimeoutMs: 300 } });
afterAll(() => runtime.close());

describe("isolation", () => {
  it("cannot reach the host: no real process, require, host globals or file system", async () => {
    const code = `
      export default {
        name: "Escape", version: "0.1.0", type: "action",
        async run() {
          const probes = {};
          const attempt = (name, fn) => { try { probes[name] = fn(); } catch (e) { probes[name] = "threw: " + e.message; } };
          attempt("processKeys", () => Object.keys(process).sort().join(","));
          attempt("env", () => JSON.stringify(process.env));
          attempt("exit", () => { try { process.exit(1); return "exited"; } catch (e) { return e.code; } });
          attempt("binding", () => typeof process.binding);
          attempt("require", () => typeof require);
          attempt("moduleRequire", () => typeof module);
          attempt("globalRequire", () => typeof globalThis.require);
          attempt("hostGlobal", () => (globalThis.global === globalThis ? "own" : typeof globalThis.global) + "/" + typeof globalThis.Deno + "/" + typeof globalThis.window);
          attempt("ctorEscape", () => typeof (function () {}).constructor("return process")().mainModule);
          attempt("std", () => typeof globalThis.std + "/" + typeof globalThis.os);
          attempt("importFs", () => typeof import.meta);
          let dynamicImport;
          // QuickJS's own module loader (an import() the bundler did not see) has nothing behind it.
          try { await new Function("return import('fs')")(); dynamicImport = "imported"; } catch (e) { dynamicImport = "threw"; }
          probes.dynamicImport = dynamicImport;
          // The bundler's import() is require() in a promise: the sandbox's fs, /tmp only.
          const viaImport = await import("fs");
          try { viaImport.readFileSync("/etc/passwd"); probes.importedFs = "read"; } catch (e) { probes.importedFs = e.code; }
          return probes;
        },
      };`;
    const m = await mountCode(runtime, code, {});
    const r = await m.runAction();
    const p = r.returnValue as Record<string, string>;
    // Fixed values only (title, arch, pid, execPath are what packages read at load), nothing of the host.
    expect(p.processKeys).toBe(
      "addListener,arch,argv,config,cpuUsage,cwd,emit,emitWarning,env,execArgv,execPath,exit,exitCode,features,hrtime,listenerCount,listeners,memoryUsage,nextTick,off,on,once,pid,platform,prependListener,prependOnceListener,release,removeAllListeners,removeListener,setMaxListeners,stderr,stdout,title,umask,uptime,version,versions",
    );
    expect(p.env).toBe('{"PD_COMPONENT":"dc_test"}');
    expect(p.exit).toBe("ERR_NOT_AVAILABLE_IN_SANDBOX");
    expect(p.binding).toBe("undefined");
    expect(p.globalRequire).toBe("undefined");
    // `global` is the sandbox's own global object (Node's name for it), not the host's.
    expect(p.hostGlobal).toBe("own/undefined/undefined");
    expect(p.ctorEscape).toBe("undefined");
    expect(p.std).toBe("undefined/undefined");
    expect(p.dynamicImport).toBe("threw");
    expect(p.importedFs).toBe("EACCES");
    m.dispose();
  });

  it("ends while (true) {} at its deadline (even when the loop catches), and the next run works", async () => {
    // Only the deadline can end this run (how soon after it: bench:runtime, "timeout overshoot").
    const code = `export default { name: "Loop", version: "0.1.0", run(e) { if (e.spin) { try { while (true) {} } catch (err) {} } this.$emit({ ok: true }); } };`;
    const m = await mountCode(runtime, code, {});
    const r = await m.run({ spin: true });
    expect(r.error).toMatchObject({ code: "timeout", name: "TimeoutError" });
    expect(r.emits).toEqual([]);
    const next = await m.run({});
    expect(next.error).toBeUndefined();
    expect(next.emits).toEqual([{ event: { ok: true }, json: JSON.stringify({ ok: true }), meta: {} }]);
    m.dispose();
  });

  it("ends an await that outlives the deadline with a timeout", async () => {
    const code = `export default { name: "Slow", version: "0.1.0", async run() { await new Promise((r) => setTimeout(r, 60000)); } };`;
    const m = await mountCode(runtime, code, {});
    // A minute's wait, which the test would not outlive: only the deadline ends it.
    expect((await m.run({})).error?.code).toBe("timeout");
    m.dispose();
  });

  it("ends a run that allocates a gigabyte with a memory error; the host is unharmed", async () => {
    const big = testRuntime({ limits: { runTimeoutMs: 20_000 } });
    const code = `
      export default { name: "Hog", version: "0.1.0", run(e) {
        if (e.mode === "one") { const a = new Uint8Array(1024 * 1024 * 1024); a[0] = 1; }
        if (e.mode === "many") { const keep = []; while (true) keep.push({ n: keep.length, s: "x" + keep.length }); }
        if (e.mode === "string") { let s = "x"; for (let i = 0; i < 40; i++) s = s + s; }
        this.$emit({ fine: true });
      } };`;
    const m = await mountCode(big, code, {});
    const hostBefore = process.memoryUsage().rss;
    for (const mode of ["one", "many", "string"]) {
      const r = await m.run({ mode });
      expect(r.error?.code, mode).toMatch(/^(memory|error)$/);
      if (r.error?.code === "error")
        expect(r.error.message).toMatch(/out of memory|too long|Invalid array buffer length/);
      const after = await m.run({ mode: "none" });
      expect(after.emits).toEqual([
        { event: { fine: true }, json: JSON.stringify({ fine: true }), meta: {} },
      ]);
    }
    expect(process.memoryUsage().rss - hostBefore).toBeLessThan(512 * 1024 * 1024);
    m.dispose();
    await big.close();
  }, 60_000);

  it("does not leak over 10,000 invocations", async () => {
    const code = `export default { name: "Busy", version: "0.1.0", props: { db: "$.service.db" }, async run(e) { this.db.set("k", e.i); this.$emit({ i: e.i, v: this.db.get("k") }, { id: e.i }); } };`;
    const values = new Map<string, unknown>();
    const m = await mountCode(
      runtime,
      code,
      {},
      {
        db: {
          entries: async () => Object.fromEntries(values),
          write: async (w) => {
            for (const [k, v] of w) values.set(k, v);
          },
        },
      },
    );
    for (let i = 0; i < 1000; i++) await m.run({ i });
    const guestAfterWarmup = m.memoryUsage();
    for (let i = 0; i < 9000; i++) {
      const r = await m.run({ i });
      if (r.error) throw new Error(r.error.message);
    }
    const guestAfter = m.memoryUsage();
    expect(values.get("k")).toBe(8999);
    // Flat: the guest heap after 10,000 runs is within 64 KB of what it was after 1,000.
    expect(Math.abs(guestAfter - guestAfterWarmup)).toBeLessThan(64 * 1024);
    m.dispose();
  }, 60_000);
});
