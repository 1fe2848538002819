// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The prop-configuration calls, kept out of api.js as they are rarely used: the `options` and
// `additionalProps` invocations; and the explanation of a value that is not JSON-serializable.
(function (S) {
  var api = S.api;
  var toJsonValue = S.load("component").toJsonValue;
  var definition;
  var thisObj;

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
      var pd;
      if (Array.isArray(prop.propDefinition)) {
        var app = prop.propDefinition[0];
        pd = app && app.propDefinitions && app.propDefinitions[prop.propDefinition[1]];
      }
      // SPEC: page and prevContext are the caller's (reserved for paging); query reaches the method
      // only when the prop (or its definition) has useQuery.
      var useQuery = prop.useQuery !== undefined ? prop.useQuery === true : !!(pd && pd.useQuery === true);
      var base = {
        page: arg.page === undefined ? 0 : arg.page,
        prevContext: arg.prevContext === undefined ? {} : arg.prevContext,
      };
      if (arg.query !== undefined && useQuery) base.query = arg.query;
      if (typeof prop.options === "function")
        return Promise.resolve(prop.options.call(thisObj, base)).then(normalizeOptions);
      if (Array.isArray(prop.propDefinition)) {
        if (pd && typeof pd.options === "function") {
          var appThis = null;
          for (var key of Object.keys(thisObj)) {
            var candidate = thisObj[key];
            if (
              candidate &&
              typeof candidate === "object" &&
              candidate.app === app.app &&
              "$auth" in candidate
            )
              appThis = candidate;
          }
          if (!appThis) appThis = S.load("component").makeApp(app, {});
          var inputValues = prop.propDefinition[2];
          var extra =
            typeof inputValues === "function" ? inputValues(Object.assign({}, thisObj)) : inputValues || {};
          // The inputValues first: they cannot override what the caller pages with.
          return Promise.resolve(pd.options.call(appThis, Object.assign({}, extra, base))).then(
            normalizeOptions,
          );
        }
        if (pd && Array.isArray(pd.options)) return { options: toJsonValue(pd.options, "options") };
      }
      if (Array.isArray(prop.options)) return { options: toJsonValue(prop.options, "options") };
      var none = new Error('Prop "' + arg.prop + '" has no options');
      none.code = "no_options";
      throw none;
    });
  }

  function additionalProps(arg) {
    if (typeof definition.additionalProps !== "function") return {};
    return Promise.resolve(definition.additionalProps.call(thisObj, arg.previous || {})).then((props) =>
      S.load("describe").serializeDefinition(props || {}, 0, []),
    );
  }

  return {
    notSerializable: notSerializable,
    options: (def, self, arg) => {
      definition = def;
      thisObj = self;
      return runOptions(arg);
    },
    additionalProps: (def, self, arg) => {
      definition = def;
      thisObj = self;
      return additionalProps(arg);
    },
  };
});
