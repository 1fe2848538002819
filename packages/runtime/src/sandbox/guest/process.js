// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `process` global and module.
(function (S) {
  var process = {
    env: { PD_COMPONENT: S.cfg.id },
    title: "node",
    platform: "linux",
    arch: "x64",
    pid: 1,
    execPath: "/usr/local/bin/node",
    version: "v20.0.0",
    versions: { node: "20.0.0" },
    argv: [],
    cwd: () => "/",
    nextTick: function (fn) {
      var args = Array.prototype.slice.call(arguments, 1);
      Promise.resolve().then(() => {
        fn.apply(undefined, args);
      });
    },
    hrtime: Object.assign(
      () => {
        var t = Date.now();
        return [Math.floor(t / 1000), (t % 1000) * 1e6];
      },
      { bigint: () => BigInt(Date.now()) * 1000000n },
    ),
    emitWarning: () => {},
    // Not a terminal: writes go to the component's logs.
    stdout: { fd: 1, isTTY: false, write: (s) => (S.G.console.log(String(s).replace(/\n$/, "")), true) },
    stderr: { fd: 2, isTTY: false, write: (s) => (S.G.console.error(String(s).replace(/\n$/, "")), true) },
  };
  // What `Object.prototype.toString` says of Node's process (axios picks its Node adapter by it).
  Object.defineProperty(process, Symbol.toStringTag, { value: "process" });
  // No terminal in the sandbox: packages ask `tty.isatty(fd)` to choose colours.
  var tty = { isatty: () => false };
  return { process: process, modules: { process: process, tty: tty } };
});
