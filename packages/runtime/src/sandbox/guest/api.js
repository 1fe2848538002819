// Guest API: loads the bundled component, builds its `this`, and runs invocations. It follows
// core.js inside the same function body; the host returns GUEST_API ({ load, mount, invoke, complete }).
// Every value crosses the boundary as one JSON string each way. What only some components use
// (db, app and http props, actions' `$`, errors, options) is in component.js and prop-options.js.
var current = null;
var orphanLogs = [];
var definition = null;
var thisObj = null;
var dbValues = {};
var FLOW_EXIT = { flowExit: true };

// `value` as JSON text (undefined for undefined), or a TypeError naming what JSON would drop or
// refuse in it (a function, symbol, BigInt or cycle). One JSON.stringify whose replacer flags
// what JSON drops: a separate walk costs more in QuickJS. extra.js's notSerializable() explains.
var dropped = false;
function flag(_key, v) {
  var t = typeof v;
  if (t === "function" || t === "symbol") dropped = true;
  return v;
}
function toJson(value, what) {
  dropped = false;
  var json;
  try {
    json = jsonStringify(value, flag);
  } catch (e) {
    // Cycles and BigInts throw a TypeError; anything else (a throwing toJSON) is the caller's.
    if (!(e instanceof TypeError) || !load("prop-options").notSerializable(value, "value", [])) throw e;
    dropped = true;
  }
  if (dropped) {
    var why = load("prop-options").notSerializable(value, "value", []) || "a value JSON cannot represent";
    throw new TypeError(what + ": value is not JSON-serializable (" + why + ")");
  }
  return json;
}

var NO_META = {};
function emit(event, meta) {
  if (!current) return;
  if (meta === undefined || meta === null) meta = NO_META;
  else if (typeof meta !== "object") throw new TypeError("$emit(event, meta): meta must be an object");
  // Kept as JSON texts (a snapshot of the values now), spliced into the result by serializeRecord:
  // the meta in the record, the event's text after it, as is (the host stores and POSTs these bytes).
  // JSON.stringify leaves out meta keys whose value is undefined.
  var text = toJson(event, "$emit");
  var metaText = toJson(meta, "$emit meta");
  current.emits.push(metaText);
  current.texts.push(text === undefined ? "" : text);
}

// The props given at mount, bound again after a run that had its own (see dispatch).
var mountedProps = {};
var rebound = false;
function mount(propsJson) {
  mountedProps = jsonParse(propsJson);
  bindProps(mountedProps);
}

// A prop's type: its own, or that of the app's prop definition it reuses (`propDefinition`).
function propType(prop) {
  if (typeof prop === "string") return prop;
  if (!prop || typeof prop !== "object") return undefined;
  if (prop.type !== undefined) return prop.type;
  var ref = prop.propDefinition;
  var defs = Array.isArray(ref) && ref[0] && ref[0].propDefinitions;
  var found = defs && typeof ref[1] === "string" ? defs[ref[1]] : undefined;
  return found && typeof found === "object" ? found.type : undefined;
}

// Builds `this` from configured prop values (at mount, and per action run given its own props).
function bindProps(configured) {
  var def = definition;
  var self = {};
  var props = def.props || {};
  for (var name of Object.keys(props)) {
    var prop = props[name];
    var type = propType(prop);
    if (type === "http_request") self[name] = load("http-request").httpRequest(configured[name]);
    else if (
      type === "$.service.db" ||
      type === "$.interface.http" ||
      type === "app" ||
      type === "data_store"
    )
      self[name] = load("component").prop(type, prop, configured[name]);
    else if (configured[name] !== undefined) self[name] = configured[name];
  }
  for (var extra of Object.keys(configured)) if (!(extra in props)) self[extra] = configured[extra];
  var methods = def.methods || {};
  for (var m of Object.keys(methods)) if (typeof methods[m] === "function") self[m] = methods[m].bind(self);
  self.$emit = emit;
  thisObj = self;
}

// Evaluates the bundle; describes the definition only when asked (mounting a component whose
// description the host already has skips that, and describe.js is then never compiled).
function loadComponent(factory, describe) {
  var module = { exports: {} };
  factory(module, module.exports, requireBuiltin);
  var exp = module.exports;
  // An ES module without `export default` (esbuild marks ES modules with __esModule).
  if (exp && exp.__esModule && !("default" in exp)) {
    var named = Object.keys(exp);
    throw new TypeError(
      "The module has no default export: export the component with `export default { ... }`" +
        (named.length ? " (it exports " + named.join(", ") + ")" : ""),
    );
  }
  var def = exp && typeof exp === "object" && "default" in exp ? exp.default : exp;
  definition = def;
  var logs = orphanLogs;
  orphanLogs = [];
  if (!describe) return jsonStringify({ logs: logs });
  return jsonStringify({ definition: load("describe").serializeDefinition(def, 0, []), logs: logs });
}

function dispatch(kind, arg, rec) {
  var def = definition;
  if (kind === "run") {
    // A source without run (Pipedream's schedule sources) emits its trigger event as it came.
    if (typeof def.run !== "function") return emit(arg.event);
    return def.run.call(thisObj, arg.event);
  }
  if (kind === "action") {
    // A workflow step: its own prop values this run, `{{ }}` expressions evaluated here first.
    var props = arg.props;
    if (arg.exprs)
      props = load("component").evalExprs(props || {}, arg.exprs, arg.steps || {}, arg.env || {});
    if (props) {
      bindProps(props);
      rebound = true;
    } else if (rebound) {
      bindProps(mountedProps);
      rebound = false;
    }
    return def.run.call(thisObj, { $: load("component").makeDollar(rec, arg), steps: arg.steps || {} });
  }
  if (kind === "hook") {
    var hook = def.hooks && def.hooks[arg.name];
    return typeof hook === "function" ? hook.call(thisObj) : undefined;
  }
  if (kind === "options" || kind === "additionalProps") return load("prop-options")[kind](def, thisObj, arg);
  throw new Error("Unknown invocation kind " + kind);
}

// The result's JSON text, with only the fields that are not empty (the host fills in the rest):
// every JSON.stringify call costs over a microsecond in QuickJS. rec.emits holds the metas' JSON
// texts; the events' texts follow the record, each after a newline (JSON text has no raw newline;
// an empty line is an undefined event).
function serializeRecord(rec) {
  var out = '{"emits":[' + rec.emits.join(",") + "]";
  if (rec.logs.length > 0) out += ',"logs":' + jsonStringify(rec.logs);
  if (rec.dbWrites !== null) out += ',"dbWrites":' + jsonStringify(rec.dbWrites);
  // Sends, responds, exports, flowExit and error come from component.js only.
  if (shims.component) out += shims.component.fields(rec);
  if (rec.returnValue !== undefined) {
    var value;
    try {
      value = toJson(rec.returnValue, "return value");
    } catch (_e) {
      value = jsonStringify(jsonParse(load("format").inspect(rec.returnValue, 1)));
    }
    if (value !== undefined) out += ',"returnValue":' + value;
  }
  return out + "}" + (rec.texts.length > 0 ? "\n" + rec.texts.join("\n") : "");
}

function finish(rec, err) {
  current = null;
  try {
    if (err !== undefined && err !== FLOW_EXIT) rec.error = load("component").describeError(err);
    return serializeRecord(rec);
  } catch (e) {
    return jsonStringify({ emits: [], logs: rec.logs, error: load("component").describeError(e) });
  }
}

// Starts an invocation and returns what the component returned: the host runs the pending jobs
// until that settles (a value that is not a promise is settled already), then calls complete().
function invoke(kind, argJson) {
  var arg = jsonParse(argJson);
  current = {
    kind: kind,
    emits: [],
    texts: [],
    exports: null,
    responds: null,
    sends: null,
    logs: orphanLogs,
    dbWrites: null,
  };
  orphanLogs = [];
  if (arg.db) dbValues = arg.db;
  try {
    var value = dispatch(kind, arg, current);
    // A thenable becomes a native promise (Promise.resolve returns a native one as it is).
    return value && typeof value.then === "function" ? Promise.resolve(value) : value;
  } catch (e) {
    return Promise.reject(e);
  }
}

// The result's JSON text of the running invocation, given the value its promise settled with.
function complete(value, failed) {
  var rec = current;
  if (failed) return finish(rec, value === undefined ? null : value);
  rec.returnValue = value;
  return finish(rec, undefined);
}

S.api = {
  __proto__: null,
  log: (line) => {
    if (current) current.logs.push(line);
    else if (orphanLogs.length < 1000) orphanLogs.push(line);
  },
  FLOW_EXIT: FLOW_EXIT,
  current: () => current,
  dbValues: () => dbValues,
  toJson: toJson,
};
var GUEST_API = { load: loadComponent, mount: mount, invoke: invoke, complete: complete };
