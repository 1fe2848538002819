// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The `util` module.
(function (S) {
  var fmt = S.load("format");
  var format = fmt.format;
  var inspect = fmt.inspect;
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
      types: {
        isDate: (v) => v instanceof Date,
        isRegExp: (v) => v instanceof RegExp,
        isPromise: (v) => v instanceof Promise,
      },
    };
    Object.defineProperty(util, "TextEncoder", { enumerable: true, get: () => S.load("bytes").TextEncoder });
    Object.defineProperty(util, "TextDecoder", { enumerable: true, get: () => S.load("bytes").TextDecoder });
    util.default = util;
    return util;
  }
  return { modules: { util: makeUtil() } };
});
