// Guest core: the start of the body of `function (hostCall, hostAsync, cfg)` that every QuickJS
// context evaluates (no host globals exist there); api.js follows it. QuickJS compiles all of it
// eagerly in every new context (about 0.1 us a character), so it holds only what loading,
// mounting and running any component needs. The rest is in guest/<name>.js files that `load(name)`
// compiles on first use: the host returns the file as `(function (S) { ... })`, the guest
// evaluates it with indirect eval and calls it with the shared scope S. Globals such as console,
// Buffer, URL, fetch, setTimeout or process are getters that load their file; so are the built-in
// modules of `require`. Plain ES2020 run by QuickJS, never by Node.
var G = globalThis;
// The host reads and writes JSON text through these: a component that replaces JSON.stringify or
// JSON.parse changes its own calls, never what the host receives.
var jsonStringify = JSON.stringify;
var jsonParse = JSON.parse;
var geval = G.eval;
var shims = Object.create(null);
function load(name) {
  return shims[name] || (shims[name] = geval(hostCall("shim", name))(S));
}
// No prototype: a getter a component defines on Object.prototype never sees S.
var S = {
  __proto__: null,
  G: G,
  cfg: cfg,
  load: load,
  // Node's modules as `require` gives them (the vendored packages require each other's).
  require: requireBuiltin,
  hostCall: hostCall,
  hostAsync: hostAsync,
  jsonStringify: jsonStringify,
  jsonParse: jsonParse,
};

// "names:file" groups: the globals, and (after "#") the modules of `require`, each guest file
// defines (globals as properties of the same name, modules in its `modules`). Kept as text:
// compiling an object literal costs more than splitting this.
var LAZY =
  "console:console Buffer,TextEncoder,TextDecoder,atob,btoa,#buffer:bytes URL,URLSearchParams,#url:url " +
  "crypto,#crypto:crypto CryptoKey,SubtleCrypto:crypto-subtle fetch,Headers,Response:fetch structuredClone:clone process,#process,#tty:process " +
  "setTimeout,clearTimeout,setInterval,clearInterval,setImmediate,clearImmediate,queueMicrotask,#timers,#timers/promises:timers " +
  "#querystring:querystring #diagnostics_channel:channels #util,#util/types:util #events:events #@pipedream/platform,#@pipedream/types:platform " +
  "#fs,#fs/promises:fs #path,#path/posix,#os:path #stream,#stream/promises:stream " +
  "#string_decoder:vendor/string_decoder " +
  "DOMException,Event,EventTarget,AbortController,AbortSignal,Blob,File,FormData,performance,ReadableStream," +
  "WritableStream,TransformStream,ByteLengthQueuingStrategy,CountQueuingStrategy,#perf_hooks,#stream/web:web " +
  "#http,#https,#http2:http #net,#tls:net #dns,#dns/promises:dns #zlib:zlib #assert,#assert/strict:assert";
function setGlobal(name, value) {
  Object.defineProperty(G, name, { value: value, writable: true, configurable: true, enumerable: false });
  return value;
}
// Node's name for the global object, and a CommonJS module's folder and file, which packages read
// at load (`path.join(__dirname, ...)`): the bundle is one file at the root.
setGlobal("global", G);
setGlobal("__dirname", "/");
setGlobal("__filename", "/component.js");
// Pipedream's code steps: `export default defineComponent({ ... })` with no import.
setGlobal("defineComponent", function defineComponent(component) {
  return component;
});
// A global that loads its file on first read; assigning it replaces it like a plain global.
function lazyGlobal(name, file) {
  Object.defineProperty(G, name, {
    configurable: true,
    get: () => setGlobal(name, load(file)[name]),
    set: (value) => setGlobal(name, value),
  });
}
var files = Object.create(null);
for (var group of LAZY.split(" ")) {
  var at = group.indexOf(":");
  for (var name of group.slice(0, at).split(",")) {
    files[name] = group.slice(at + 1);
    if (name[0] !== "#") lazyGlobal(name, files[name]);
  }
}

// V8's stack API, which packages use to find their caller (`callsites`, `depd`, `ow`): QuickJS
// has none, so `new Error().stack` under `Error.prepareStackTrace` and `Error.captureStackTrace`
// get call sites parsed from QuickJS's stack text (guest/stack.js).
var NativeError = Error;
setGlobal(
  "Error",
  new Proxy(NativeError, {
    construct: (target, args, newTarget) => {
      var error = Reflect.construct(target, args, newTarget);
      if (typeof target.prepareStackTrace === "function") load("stack").prepare(error, target);
      return error;
    },
  }),
);
NativeError.stackTraceLimit = 10;
NativeError.captureStackTrace = (object) => load("stack").capture(object, NativeError);
// Intl (guest/intl.js, over the host's) and the locale methods of Date, Number and String.
lazyGlobal("Intl", "intl");
for (var locale of "Date:toLocaleString:all Date:toLocaleDateString:date Date:toLocaleTimeString:time Number:toLocaleString:number".split(
  " ",
)) {
  var [cls, method, kind] = locale.split(":");
  Object.defineProperty(G[cls].prototype, method, {
    writable: true,
    configurable: true,
    value: ((k) =>
      function (locales, options) {
        return load("intl").toLocale(k, this, locales, options);
      })(kind),
  });
}
Object.defineProperty(String.prototype, "localeCompare", {
  writable: true,
  configurable: true,
  value: function localeCompare(that, locales, options) {
    return load("intl").compare(this, that, locales, options);
  },
});

function requireBuiltin(name) {
  var bare = String(name).indexOf("node:") === 0 ? String(name).slice(5) : String(name);
  if (bare.indexOf("hookline-missing:") === 0) {
    // An optional dependency that is not installed (see the bundler): what Node throws.
    var missing = new Error("Cannot find module '" + bare.slice(17) + "'");
    missing.code = "MODULE_NOT_FOUND";
    throw missing;
  }
  // The bundler leaves only built-ins here: one the sandbox does not have throws when used.
  if (files["#" + bare] === undefined) return load("unavailable").module(bare);
  return load(files["#" + bare]).modules[bare];
}
