// Guest-side API: loads the bundled component, builds its `this`, and runs invocations. It follows
// shims.js inside the same function body; the host returns GUEST_API ({ load, mount, invoke }). Every
// value crosses the boundary as one JSON string each way.
var current = null;
var orphanLogs = [];
var definition = null;
var thisObj = null;
var dbValues = {};
var FLOW_EXIT = { flowExit: true };

function logTo(level) {
  return function () {
    var line = { level: level, message: format.apply(undefined, arguments), ts: Date.now() };
    if (current) current.logs.push(line);
    else if (orphanLogs.length < 1000) orphanLogs.push(line);
  };
}
G.console = {
  log: logTo("log"),
  info: logTo("info"),
  warn: logTo("warn"),
  error: logTo("error"),
  debug: logTo("debug"),
  trace: logTo("debug"),
  dir: logTo("log"),
  table: logTo("log"),
  time: () => {},
  timeEnd: () => {},
  assert: (ok) => {
    if (!ok) logTo("error")("Assertion failed");
  },
};

function isPlainObject(v) {
  if (v === null || typeof v !== "object") return false;
  var proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

// Why a value is not JSON-serializable, or undefined when it is.
function notSerializable(value, path, seen) {
  var t = typeof value;
  if (t === "function") return "a function at " + path;
  if (t === "symbol") return "a symbol at " + path;
  if (t === "bigint") return "a BigInt at " + path;
  if (value === null || t !== "object") return undefined;
  if (seen.indexOf(value) !== -1) return "a circular reference at " + path;
  if (typeof value.toJSON === "function") return undefined;
  seen.push(value);
  var keys = Object.keys(value);
  for (var i = 0; i < keys.length; i++) {
    var why = notSerializable(
      value[keys[i]],
      path + (Array.isArray(value) ? "[" + keys[i] + "]" : "." + keys[i]),
      seen,
    );
    if (why) return why;
  }
  seen.pop();
  return undefined;
}

// The fast check: true when `value` is JSON-serializable. Builds no paths; the slow
// notSerializable() runs only to explain a failure.
function serializable(value, seen) {
  var t = typeof value;
  if (t === "function" || t === "symbol" || t === "bigint") return false;
  if (value === null || t !== "object") return true;
  if (typeof value.toJSON === "function") return true;
  if (seen.indexOf(value) !== -1) return false;
  seen.push(value);
  if (Array.isArray(value)) {
    for (var i = 0; i < value.length; i++) if (!serializable(value[i], seen)) return false;
  } else {
    for (var k in value) if (Object.hasOwn(value, k) && !serializable(value[k], seen)) return false;
  }
  seen.pop();
  return true;
}

// `value` as a JSON string (undefined for undefined), or a TypeError naming what is not serializable.
function toJsonString(value, what) {
  if (value === undefined) return undefined;
  if (!serializable(value, [])) {
    var why = notSerializable(value, "value", []) || "a value JSON cannot represent";
    throw new TypeError(what + ": value is not JSON-serializable (" + why + ")");
  }
  return JSON.stringify(value);
}

function toJsonValue(value, what) {
  var json = toJsonString(value, what);
  return json === undefined ? undefined : JSON.parse(json);
}

// Definition -> JSON: functions become {"$fn": true} (what @hookline/core's validation accepts).
function serializeDefinition(value, depth, seen) {
  if (typeof value === "function") return { $fn: true };
  if (value === null || typeof value !== "object") return typeof value === "bigint" ? String(value) : value;
  if (depth > 24 || seen.indexOf(value) !== -1) return null;
  if (value instanceof RegExp || value instanceof Date) return String(value);
  seen.push(value);
  var out;
  if (Array.isArray(value)) out = value.map((v) => serializeDefinition(v, depth + 1, seen));
  else {
    out = {};
    for (var k of Object.keys(value)) {
      var v = value[k];
      if (v !== undefined) out[k] = serializeDefinition(v, depth + 1, seen);
    }
  }
  seen.pop();
  return out;
}

function propType(prop) {
  if (typeof prop === "string") return prop;
  if (prop && typeof prop === "object") return prop.type;
  return undefined;
}

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
    value: deepFreeze(JSON.parse(JSON.stringify((configured && configured.$auth) || {}))),
    enumerable: true,
    writable: false,
    configurable: false,
  });
  Object.defineProperty(app, "app", { value: appDef.app, enumerable: false });
  Object.defineProperty(app, "propDefinitions", { value: appDef.propDefinitions || {}, enumerable: false });
  return app;
}

function bytesOrValue(body) {
  if (body instanceof Uint8Array) return { $bytes: base64Encode(body, false) };
  if (body instanceof ArrayBuffer) return { $bytes: base64Encode(new Uint8Array(body), false) };
  return toJsonValue(body, "respond body");
}

function checkRespond(r, where) {
  if (r === null || typeof r !== "object")
    throw new TypeError(where + " takes an object { status, headers, body }");
  var status = r.status;
  if (typeof status !== "number" || !Number.isInteger(status) || status < 100 || status > 599) {
    var err = new TypeError(
      where + ": status must be an integer from 100 to 599, got " + JSON.stringify(status),
    );
    err.code = "invalid_respond";
    throw err;
  }
  var headers;
  if (r.headers !== undefined) {
    if (!isPlainObject(r.headers)) throw new TypeError(where + ": headers must be an object");
    headers = {};
    for (var k of Object.keys(r.headers)) headers[k] = String(r.headers[k]);
  }
  var out = { status: status };
  if (headers) out.headers = headers;
  if (r.body !== undefined) out.body = bytesOrValue(r.body);
  return out;
}

function makeDb() {
  return {
    get: (key) => {
      var k = String(key);
      return Object.hasOwn(dbValues, k) ? JSON.parse(JSON.stringify(dbValues[k])) : undefined;
    },
    set: (key, value) => {
      var k = String(key);
      var json = toJsonValue(value, 'db.set("' + k + '")');
      if (json === undefined) delete dbValues[k];
      else dbValues[k] = json;
      if (current) current.dbWrites.push([k, json === undefined ? null : json, json === undefined]);
    },
  };
}

function emit(event, meta) {
  if (!current) return;
  if (meta !== undefined && meta !== null && typeof meta !== "object")
    throw new TypeError("$emit(event, meta): meta must be an object");
  // Kept as JSON text (a snapshot of the values now), spliced into the result by serializeRecord.
  // JSON.stringify leaves out meta keys whose value is undefined.
  var ev = toJsonString(event, "$emit");
  var mj = meta === undefined || meta === null ? "{}" : toJsonString(meta, "$emit meta");
  current.emits.push(ev === undefined ? '{"meta":' + mj + "}" : '{"event":' + ev + ',"meta":' + mj + "}");
}

function mount(propsJson) {
  var configured = JSON.parse(propsJson);
  var def = definition;
  var self = {};
  var props = def.props || {};
  for (var name of Object.keys(props)) {
    var prop = props[name];
    var type = propType(prop);
    if (type === "$.service.db") self[name] = makeDb();
    else if (type === "$.interface.http") {
      self[name] = {
        endpoint: configured[name] && configured[name].endpoint,
        respond: (r) => {
          if (!current || current.kind !== "run") throw new Error("respond() is callable from run() only");
          current.responds.push(checkRespond(r, "respond()"));
        },
      };
    } else if (type === "app") self[name] = makeApp(prop, configured[name]);
    else if (configured[name] !== undefined) self[name] = configured[name];
  }
  for (var extra of Object.keys(configured)) if (!(extra in props)) self[extra] = configured[extra];
  var methods = def.methods || {};
  for (var m of Object.keys(methods)) if (typeof methods[m] === "function") self[m] = methods[m].bind(self);
  self.$emit = emit;
  thisObj = self;
}

function load(factory) {
  var module = { exports: {} };
  factory(module, module.exports, requireBuiltin);
  var exp = module.exports;
  var def = exp && typeof exp === "object" && "default" in exp ? exp.default : exp;
  definition = def;
  var logs = orphanLogs;
  orphanLogs = [];
  return JSON.stringify({ definition: serializeDefinition(def, 0, []), logs: logs });
}

function makeDollar(rec) {
  function send(kind) {
    return (payload) => {
      rec.sends.push({ kind: kind, payload: toJsonValue(payload, "$.send." + kind) });
    };
  }
  return {
    export: (name, value) => {
      rec.exports[String(name)] = toJsonValue(value, "$.export");
    },
    respond: (r) => {
      rec.responds.push(checkRespond(r, "$.respond()"));
    },
    flow: {
      exit: (reason) => {
        rec.flowExit = reason === undefined ? {} : { reason: String(reason) };
        throw FLOW_EXIT;
      },
    },
    send: { http: send("http"), email: send("email"), s3: send("s3"), emit: send("emit"), sse: send("sse") },
  };
}

function findProp(name, previous) {
  var props = definition.props || {};
  if (props[name] !== undefined) return props[name];
  if (typeof definition.additionalProps === "function") {
    return Promise.resolve(definition.additionalProps.call(thisObj, previous || {})).then(
      (extra) => extra && extra[name],
    );
  }
  return undefined;
}

function normalizeOptions(result) {
  if (Array.isArray(result)) return { options: toJsonValue(result, "options") };
  if (result && typeof result === "object" && Array.isArray(result.options)) {
    var out = { options: toJsonValue(result.options, "options") };
    if (result.context !== undefined) out.context = toJsonValue(result.context, "options context");
    return out;
  }
  throw new TypeError("options() must return an array or { options, context }");
}

function runOptions(arg) {
  return Promise.resolve(findProp(arg.prop, arg.previous)).then((prop) => {
    if (prop === undefined || prop === null || typeof prop !== "object") {
      var err = new Error('Unknown prop "' + arg.prop + '"');
      err.code = "unknown_prop";
      throw err;
    }
    var base = {
      page: arg.page === undefined ? 0 : arg.page,
      prevContext: arg.prevContext === undefined ? {} : arg.prevContext,
    };
    if (arg.query !== undefined) base.query = arg.query;
    if (typeof prop.options === "function")
      return Promise.resolve(prop.options.call(thisObj, base)).then(normalizeOptions);
    if (Array.isArray(prop.propDefinition)) {
      var app = prop.propDefinition[0];
      var pd = app && app.propDefinitions && app.propDefinitions[prop.propDefinition[1]];
      if (pd && typeof pd.options === "function") {
        var appThis = null;
        for (var key of Object.keys(thisObj)) {
          var candidate = thisObj[key];
          if (candidate && typeof candidate === "object" && candidate.app === app.app && "$auth" in candidate)
            appThis = candidate;
        }
        if (!appThis) appThis = makeApp(app, {});
        var inputValues = prop.propDefinition[2];
        var extra =
          typeof inputValues === "function" ? inputValues(Object.assign({}, thisObj)) : inputValues || {};
        return Promise.resolve(pd.options.call(appThis, Object.assign(base, extra))).then(normalizeOptions);
      }
      if (pd && Array.isArray(pd.options)) return { options: toJsonValue(pd.options, "options") };
    }
    if (Array.isArray(prop.options)) return { options: toJsonValue(prop.options, "options") };
    var none = new Error('Prop "' + arg.prop + '" has no options');
    none.code = "no_options";
    throw none;
  });
}

function dispatch(kind, arg, rec) {
  var def = definition;
  if (kind === "run") return def.run.call(thisObj, arg.event);
  if (kind === "action") return def.run.call(thisObj, { $: makeDollar(rec), steps: arg.steps || {} });
  if (kind === "hook") {
    var hook = def.hooks && def.hooks[arg.name];
    return typeof hook === "function" ? hook.call(thisObj) : undefined;
  }
  if (kind === "options") return runOptions(arg);
  if (kind === "additionalProps") {
    if (typeof def.additionalProps !== "function") return {};
    return Promise.resolve(def.additionalProps.call(thisObj, arg.previous || {})).then((props) =>
      serializeDefinition(props || {}, 0, []),
    );
  }
  throw new Error("Unknown invocation kind " + kind);
}

function describeError(err) {
  if (err instanceof Error) {
    var code =
      err.code === "invalid_respond"
        ? "invalid_respond"
        : err instanceof ConfigurationError || err.name === "ConfigurationError"
          ? "configuration_error"
          : typeof err.code === "string" && /^[a-z_]+$/.test(err.code)
            ? err.code
            : "error";
    var out = { code: code, name: err.name || "Error", message: String(err.message) };
    if (err.stack) out.stack = String(err.stack);
    return out;
  }
  return { code: "error", name: "Error", message: inspect(err, 1) };
}

function serializeRecord(rec) {
  var out = {
    exports: rec.exports,
    responds: rec.responds,
    sends: rec.sends,
    logs: rec.logs,
    dbWrites: rec.dbWrites,
  };
  if (rec.flowExit) out.flowExit = rec.flowExit;
  if (rec.error) out.error = rec.error;
  if (rec.returnValue !== undefined) {
    try {
      out.returnValue = toJsonValue(rec.returnValue, "return value");
    } catch (_e) {
      out.returnValue = JSON.parse(inspect(rec.returnValue, 1));
    }
  }
  // rec.emits holds JSON strings already; `out` always has keys, so its text starts with `{"`.
  return '{"emits":[' + rec.emits.join(",") + "]," + JSON.stringify(out).slice(1);
}

function invoke(kind, argJson) {
  var arg = JSON.parse(argJson);
  var rec = { kind: kind, emits: [], exports: {}, responds: [], sends: [], logs: orphanLogs, dbWrites: [] };
  orphanLogs = [];
  if (arg.db) dbValues = arg.db;
  current = rec;
  var p;
  try {
    p = Promise.resolve(dispatch(kind, arg, rec));
  } catch (e) {
    p = Promise.reject(e);
  }
  return p
    .then(
      (value) => {
        rec.returnValue = value;
      },
      (err) => {
        if (err !== FLOW_EXIT) rec.error = describeError(err);
      },
    )
    .then(() => {
      if (current === rec) current = null;
      try {
        return serializeRecord(rec);
      } catch (e) {
        return JSON.stringify({
          emits: [],
          exports: {},
          responds: [],
          sends: [],
          logs: rec.logs,
          dbWrites: [],
          error: describeError(e),
        });
      }
    });
}

var GUEST_API = { load: load, mount: mount, invoke: invoke };
