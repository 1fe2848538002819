// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// V8's call sites (`Error.prepareStackTrace(error, callSites)`), parsed from QuickJS's stack text:
// "    at name (file:line:col)" lines.
(function (_S) {
  function CallSite(fn, file, line, column) {
    this._fn = fn;
    this._file = file;
    this._line = line;
    this._column = column;
  }
  CallSite.prototype.getFunctionName = function () {
    return this._fn;
  };
  CallSite.prototype.getMethodName = CallSite.prototype.getFunctionName;
  CallSite.prototype.getFileName = function () {
    return this._file;
  };
  CallSite.prototype.getScriptNameOrSourceURL = CallSite.prototype.getFileName;
  CallSite.prototype.getLineNumber = function () {
    return this._line;
  };
  CallSite.prototype.getColumnNumber = function () {
    return this._column;
  };
  CallSite.prototype.getTypeName = () => null;
  CallSite.prototype.getThis = () => undefined;
  CallSite.prototype.getFunction = () => undefined;
  CallSite.prototype.getEvalOrigin = () => undefined;
  for (var flag of ["isNative", "isToplevel", "isEval", "isConstructor", "isAsync", "isPromiseAll"])
    CallSite.prototype[flag] = () => false;
  CallSite.prototype.toString = function () {
    return (this._fn || "<anonymous>") + " (" + this._file + ":" + this._line + ":" + this._column + ")";
  };
  function callSites(text, skip) {
    var sites = [];
    for (var line of String(text || "").split("\n")) {
      var m = /^\s*at (?:(.*?) \()?(.*?)(?::(\d+))?(?::(\d+))?\)?$/.exec(line);
      if (!m) continue;
      sites.push(
        new CallSite(m[1] || null, m[2] || null, m[3] ? Number(m[3]) : null, m[4] ? Number(m[4]) : null),
      );
    }
    return sites.slice(skip);
  }
  function prepare(error, ErrorCtor, skip) {
    var prepareFn = ErrorCtor.prepareStackTrace;
    var sites = callSites(error.stack, skip || 0);
    var stack = typeof prepareFn === "function" ? prepareFn(error, sites) : String(error.stack);
    Object.defineProperty(error, "stack", { value: stack, writable: true, configurable: true });
  }
  return {
    prepare: (error, ErrorCtor) => prepare(error, ErrorCtor, 1),
    // The stack of the caller of captureStackTrace, on any object.
    capture: (object, ErrorCtor) => {
      var holder = new ErrorCtor();
      var text = typeof holder.stack === "string" ? holder.stack : "";
      var first = text.indexOf("\n");
      var head =
        (object && object.name ? object.name : "Error") +
        (object && object.message ? ": " + object.message : "");
      var error = { stack: text.slice(first + 1) };
      prepare(error, ErrorCtor, 1);
      Object.defineProperty(object, "stack", {
        value: typeof error.stack === "string" ? head + "\n" + error.stack : error.stack,
        writable: true,
        configurable: true,
      });
    },
  };
});
