// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `util` module.
(function (S) {
  var fmt = S.load("format");
  var format = fmt.format;
  var inspect = fmt.inspect;
  var tag = (v) => Object.prototype.toString.call(v).slice(8, -1);
  // The checks of node:util/types that packages use.
  var types = {
    isDate: (v) => v instanceof Date,
    isRegExp: (v) => v instanceof RegExp,
    isPromise: (v) => v instanceof Promise,
    isMap: (v) => v instanceof Map,
    isSet: (v) => v instanceof Set,
    isWeakMap: (v) => v instanceof WeakMap,
    isWeakSet: (v) => v instanceof WeakSet,
    isNativeError: (v) => v instanceof Error,
    isArrayBuffer: (v) => v instanceof ArrayBuffer,
    isAnyArrayBuffer: (v) => v instanceof ArrayBuffer,
    isArrayBufferView: (v) => ArrayBuffer.isView(v),
    isTypedArray: (v) => ArrayBuffer.isView(v) && !(v instanceof DataView),
    isUint8Array: (v) => v instanceof Uint8Array,
    isDataView: (v) => v instanceof DataView,
    isAsyncFunction: (v) => tag(v) === "AsyncFunction",
    isGeneratorFunction: (v) => tag(v) === "GeneratorFunction" || tag(v) === "AsyncGeneratorFunction",
    // A proxy cannot be told from its target in JavaScript (http-timer asks, to skip proxies).
    isProxy: () => false,
    isBoxedPrimitive: (v) =>
      ["Number", "String", "Boolean", "BigInt", "Symbol"].includes(tag(v)) && typeof v === "object",
  };
  function makeUtil() {
    var util = {
      format: format,
      inspect: (v) => inspect(v, 1),
      promisify: (fn) =>
        function () {
          var args = Array.prototype.slice.call(arguments);
          return new Promise((resolve, reject) => {
            fn.apply(
              this,
              args.concat((err, value) => {
                if (err) reject(err);
                else resolve(value);
              }),
            );
          });
        },
      inherits: (ctor, superCtor) => {
        Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
        Object.setPrototypeOf(ctor, superCtor);
      },
      isDeepStrictEqual: (a, b) => inspect(a, 1) === inspect(b, 1),
      // Deprecation warnings and debug logs go nowhere: the function itself is returned.
      deprecate: (fn) => fn,
      debuglog: () => () => {},
      callbackify: (fn) =>
        function () {
          var args = Array.prototype.slice.call(arguments);
          var done = args.pop();
          fn.apply(this, args).then(
            (value) => done(null, value),
            (err) => done(err),
          );
        },
      types: types,
    };
    Object.defineProperty(util, "TextEncoder", { enumerable: true, get: () => S.load("bytes").TextEncoder });
    Object.defineProperty(util, "TextDecoder", { enumerable: true, get: () => S.load("bytes").TextDecoder });
    util.default = util;
    return util;
  }
  return { modules: { util: makeUtil(), "util/types": types } };
});
