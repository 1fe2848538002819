// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The parts of api.js that only some components use: db, http and app props, the `$` of actions,
// and the description of a thrown error.
(function (S) {
  var api = S.api;

  // A JSON copy of `value` (undefined for undefined), or a TypeError naming what is not serializable.
  function toJsonValue(value, what) {
    var json = api.toJson(value, what);
    return json === undefined ? undefined : S.jsonParse(json);
  }
  var FLOW_EXIT = api.FLOW_EXIT;

  function deepFreeze(v) {
    if (v && typeof v === "object") {
      Object.freeze(v);
      for (var k of Object.keys(v)) deepFreeze(v[k]);
    }
    return v;
  }

  function makeApp(appDef, configured) {
    var app = {};
    var methods = appDef.methods || {};
    for (var m of Object.keys(methods)) if (typeof methods[m] === "function") app[m] = methods[m].bind(app);
    Object.defineProperty(app, "$auth", {
      value: deepFreeze(S.jsonParse(S.jsonStringify((configured && configured.$auth) || {}))),
      enumerable: true,
      writable: false,
      configurable: false,
    });
    Object.defineProperty(app, "app", { value: appDef.app, enumerable: false });
    Object.defineProperty(app, "propDefinitions", { value: appDef.propDefinitions || {}, enumerable: false });
    return app;
  }

  function bytesOrValue(body) {
    if (body instanceof Uint8Array) return { $bytes: S.load("bytes").base64Encode(body, false) };
    if (body instanceof ArrayBuffer)
      return { $bytes: S.load("bytes").base64Encode(new Uint8Array(body), false) };
    return toJsonValue(body, "respond body");
  }

  // respond() as the component called it, made JSON: the host validates it (core's
  // validateRespond is the one owner of the rule, which accepts "201" and drops unsafe headers).
  function forwardRespond(r) {
    if (r === null || typeof r !== "object") {
      var json = toJsonValue(r, "respond()");
      return json === undefined ? null : json;
    }
    var out = {};
    for (var k of Object.keys(r)) {
      if (k === "body") {
        if (r.body !== undefined) out.body = bytesOrValue(r.body);
      } else out[k] = toJsonValue(r[k], "respond() " + k);
    }
    return out;
  }

  // A number of milliseconds given to $.flow.*, or a TypeError naming the call.
  function msOf(value, what) {
    var n = Number(value);
    if (typeof value !== "number" || !Number.isFinite(n) || n < 0)
      throw new TypeError(what + " takes a number of milliseconds >= 0");
    return Math.floor(n);
  }

  // $.flow.delay/suspend/rerun: the run pauses when the step ends; the URLs were made by the host.
  function pause(rec, arg, entry) {
    if (!arg.flow) throw new Error("$.flow." + entry.kind + "() works in a workflow step only");
    if (rec.pause) throw new Error("$.flow." + entry.kind + "(): this step already paused the run");
    rec.pause = entry;
    return { resume_url: arg.flow.resume_url, cancel_url: arg.flow.cancel_url };
  }

  function makeDollar(rec, arg) {
    arg = arg || {};
    function send(kind) {
      return (payload) => {
        var entry = { kind: kind, payload: toJsonValue(payload, "$.send." + kind) };
        (rec.sends || (rec.sends = [])).push(entry);
      };
    }
    return {
      export: (name, value) => {
        var json = toJsonValue(value, "$.export");
        (rec.exports || (rec.exports = {}))[String(name)] = json;
      },
      respond: (r) => {
        var response = forwardRespond(r);
        (rec.responds || (rec.responds = [])).push(response);
      },
      flow: {
        exit: (reason) => {
          rec.flowExit = reason === undefined ? {} : { reason: String(reason) };
          throw FLOW_EXIT;
        },
        delay: (ms) => pause(rec, arg, { kind: "delay", ms: msOf(ms, "$.flow.delay(ms)") }),
        suspend: (timeoutMs) => {
          var entry = { kind: "suspend" };
          if (timeoutMs !== undefined) entry.ms = msOf(timeoutMs, "$.flow.suspend(timeoutMs)");
          return pause(rec, arg, entry);
        },
        rerun: (delayMs, context, maxReruns) => {
          var entry = { kind: "rerun", ms: msOf(delayMs, "$.flow.rerun(delayMs)") };
          var json = toJsonValue(context, "$.flow.rerun context");
          if (json !== undefined) entry.context = json;
          if (maxReruns !== undefined) entry.maxReruns = msOf(maxReruns, "$.flow.rerun(maxReruns)");
          return pause(rec, arg, entry);
        },
      },
      context: deepFreeze(arg.context || {}),
      send: {
        http: send("http"),
        email: send("email"),
        s3: send("s3"),
        emit: send("emit"),
        sse: send("sse"),
      },
    };
  }

  function describeError(err) {
    if (err instanceof Error) {
      var code =
        err.code === "invalid_respond"
          ? "invalid_respond"
          : (S.ConfigurationError !== undefined && err instanceof S.ConfigurationError) ||
              err.name === "ConfigurationError"
            ? "configuration_error"
            : typeof err.code === "string" && /^[a-z_]+$/.test(err.code)
              ? err.code
              : "error";
      var out = { code: code, name: err.name || "Error", message: String(err.message) };
      if (err.stack) out.stack = String(err.stack);
      return out;
    }
    return { code: "error", name: "Error", message: S.load("format").inspect(err, 1) };
  }

  function makeDb() {
    return {
      get: (key) => {
        var values = api.dbValues();
        var k = String(key);
        return Object.hasOwn(values, k) ? S.jsonParse(S.jsonStringify(values[k])) : undefined;
      },
      set: (key, value) => {
        var values = api.dbValues();
        var k = String(key);
        var json = toJsonValue(value, 'db.set("' + k + '")');
        if (json === undefined) delete values[k];
        else values[k] = json;
        var rec = api.current();
        if (rec)
          (rec.dbWrites || (rec.dbWrites = [])).push([
            k,
            json === undefined ? null : json,
            json === undefined,
          ]);
      },
    };
  }

  function httpInterface(configured) {
    return {
      endpoint: configured && configured.endpoint,
      respond: (r) => {
        var rec = api.current();
        if (!rec || rec.kind !== "run") throw new Error("respond() is callable from run() only");
        var response = forwardRespond(r);
        (rec.responds || (rec.responds = [])).push(response);
      },
    };
  }

  // A data_store prop: Pipedream's async key-value API over the host's dataStore bridge.
  function makeDataStore(name) {
    var call = (op, extra) =>
      typeof name === "string" && name !== ""
        ? S.load("host").asyncHost("dataStore", Object.assign({ store: name, op: op }, extra))
        : Promise.reject(
            new Error("this data_store prop has no store configured (its value is the store's name)"),
          );
    var store = {
      get: (key) => call("get", { key: String(key) }),
      set: (key, value, options) => {
        var extra = { key: String(key), value: toJsonValue(value, 'set("' + String(key) + '")') };
        if (options && options.ttl !== undefined) extra.ttl = options.ttl;
        return call("set", extra);
      },
      has: (key) => call("has", { key: String(key) }),
      delete: (key) => call("delete", { key: String(key) }),
      keys: () => call("keys", {}),
      entries: () => call("entries", {}),
      clear: () => call("clear", {}),
      setTtl: (key, ttl) => call("setTtl", { key: String(key), ttl: ttl === undefined ? null : ttl }),
    };
    store[Symbol.asyncIterator] = async function* () {
      for (var entry of await store.entries()) yield entry;
    };
    return store;
  }

  // The value of a db, http, app or data_store prop.
  function prop(type, def, configured) {
    if (type === "$.service.db") return makeDb();
    if (type === "data_store") return makeDataStore(configured);
    if (type === "$.interface.http") return httpInterface(configured);
    return makeApp(def, configured);
  }

  // The fields of a result (see serializeRecord in api.js) that only this file's features produce.
  function fields(rec) {
    var out = "";
    if (rec.sends !== null) out += ',"sends":' + S.jsonStringify(rec.sends);
    if (rec.responds !== null) out += ',"responds":' + S.jsonStringify(rec.responds);
    if (rec.exports !== null) out += ',"exports":' + S.jsonStringify(rec.exports);
    if (rec.flowExit) out += ',"flowExit":' + S.jsonStringify(rec.flowExit);
    if (rec.pause) out += ',"pause":' + S.jsonStringify(rec.pause);
    if (rec.error) out += ',"error":' + S.jsonStringify(rec.error);
    return out;
  }

  // Text of an expression's value inside mixed text: strings as they are, objects as JSON.
  function asText(v) {
    if (v === undefined || v === null) return "";
    if (typeof v === "string") return v;
    if (typeof v === "object") return S.jsonStringify(v);
    return String(v);
  }

  // Evaluates the `{{ }}` expressions of a step's props (each `{ path, parts, whole }`, parts being
  // text or `{ code }`) over `steps` and `process.env` (only the names the host passed), and sets
  // each result at its path in `props`. A failing expression fails the step (`expression_error`).
  function evalExprs(props, exprs, steps, env) {
    var proc = { env: Object.freeze(Object.assign({}, env)) };
    for (var e of exprs) {
      var values = [];
      for (var part of e.parts) {
        if (typeof part === "string") {
          values.push(part);
          continue;
        }
        try {
          values.push(
            new Function("steps", "process", '"use strict"; return (' + part.code + "\n);")(steps, proc),
          );
        } catch (err) {
          var error = new Error(
            "expression {{" +
              part.code +
              "}} in " +
              e.label +
              ": " +
              (err && err.message ? err.message : String(err)),
          );
          error.name = "ExpressionError";
          error.code = "expression_error";
          throw error;
        }
      }
      var value = e.whole
        ? values.find((_v, i) => typeof e.parts[i] !== "string")
        : values.map(asText).join("");
      var target = props;
      for (var i = 0; i < e.path.length - 1; i++) {
        var k = e.path[i];
        if (target[k] === null || typeof target[k] !== "object")
          target[k] = typeof e.path[i + 1] === "number" ? [] : {};
        target = target[k];
      }
      target[e.path[e.path.length - 1]] = value;
    }
    return props;
  }

  return {
    evalExprs: evalExprs,
    toJsonValue: toJsonValue,
    prop: prop,
    makeApp: makeApp,
    makeDollar: makeDollar,
    describeError: describeError,
    fields: fields,
  };
});
