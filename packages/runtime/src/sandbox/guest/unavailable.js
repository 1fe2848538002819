// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// Node's built-in modules the sandbox cannot give (child processes, workers, http and socket
// servers...). Packages often require one at load time for a code path a component never takes
// (an SDK's proxy agent, a CLI credential lookup): the module is an object whose functions and
// classes throw ERR_NOT_AVAILABLE_IN_SANDBOX when called or constructed, so the package loads and
// only that path fails, with a message naming what was used.
(function (_S) {
  function fail(path) {
    var err = new Error(path + " is not available in the Hookline sandbox");
    err.code = "ERR_NOT_AVAILABLE_IN_SANDBOX";
    throw err;
  }
  function stub(path) {
    var members = Object.create(null);
    var target = function () {};
    return new Proxy(target, {
      get: (t, key) => {
        // Not a promise, not an ES module namespace; `class X extends stub.Agent` reads prototype.
        if (typeof key === "symbol" || key === "then" || key === "__esModule") return undefined;
        if (key === "prototype") return t.prototype;
        return members[key] || (members[key] = stub(path + "." + key));
      },
      set: (_t, key, value) => {
        members[key] = value;
        return true;
      },
      apply: () => fail(path + "()"),
      construct: () => fail("new " + path + "()"),
    });
  }
  return { module: stub };
});
