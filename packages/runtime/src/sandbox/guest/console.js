// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `console` global: each line goes to the running invocation's logs (see api.js).
(function (S) {
  var format = S.load("format").format;
  function logTo(level) {
    return function () {
      S.api.log({ level: level, message: format.apply(undefined, arguments), ts: Date.now() });
    };
  }
  var noop = () => {};
  var error = logTo("error");
  var console = {
    log: logTo("log"),
    info: logTo("info"),
    warn: logTo("warn"),
    error: error,
    debug: logTo("debug"),
    time: noop,
    timeEnd: noop,
    assert: (ok) => {
      if (!ok) error("Assertion failed");
    },
  };
  console.trace = console.debug;
  console.dir = console.table = console.log;
  return { console: console };
});
