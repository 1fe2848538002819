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
  var CUSTOM_PROMISIFY = Symbol.for("nodejs.util.promisify.custom");
  function makeUtil() {
    var util = {
      format: format,
      inspect: Object.assign((v) => inspect(v, 1), {
        custom: Symbol.for("nodejs.util.inspect.custom"),
        defaultOptions: {},
      }),
      promisify: (fn) => {
        if (typeof fn !== "function") throw new TypeError('The "original" argument must be of type function');
        if (fn[CUSTOM_PROMISIFY]) return fn[CUSTOM_PROMISIFY];
        return function () {
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
        };
      },
      // As Node's: the prototype chain and `super_`; the constructors' own statics are not shared.
      inherits: (ctor, superCtor) => {
        if (
          typeof ctor !== "function" ||
          typeof superCtor !== "function" ||
          superCtor.prototype === undefined
        )
          throw new TypeError("util.inherits needs two constructors");
        Object.defineProperty(ctor, "super_", { value: superCtor, writable: true, configurable: true });
        Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
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
      stripVTControlCharacters: (str) => String(str).replace(/\u001b\[[0-9;]*[A-Za-z]/g, ""),
      toUSVString: (str) => String(str),
      // The checks Node deprecated but packages still call.
      isArray: Array.isArray,
      isBoolean: (v) => typeof v === "boolean",
      isNull: (v) => v === null,
      isNullOrUndefined: (v) => v === null || v === undefined,
      isNumber: (v) => typeof v === "number",
      isString: (v) => typeof v === "string",
      isSymbol: (v) => typeof v === "symbol",
      isUndefined: (v) => v === undefined,
      isRegExp: types.isRegExp,
      isObject: (v) => v !== null && typeof v === "object",
      isDate: types.isDate,
      isError: types.isNativeError,
      isFunction: (v) => typeof v === "function",
      isPrimitive: (v) => v === null || (typeof v !== "object" && typeof v !== "function"),
      isBuffer: (v) => S.G.Buffer.isBuffer(v),
    };
    util.promisify.custom = CUSTOM_PROMISIFY;
    Object.defineProperty(util, "TextEncoder", { enumerable: true, get: () => S.load("bytes").TextEncoder });
    Object.defineProperty(util, "TextDecoder", { enumerable: true, get: () => S.load("bytes").TextDecoder });
    util.default = util;
    return util;
  }
  return { modules: { util: makeUtil(), "util/types": types } };
});
