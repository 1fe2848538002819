// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// @pipedream/platform (axios over fetch, ConfigurationError) and @pipedream/types.
(function (S) {
  class ConfigurationError extends Error {
    constructor(message) {
      super(message);
      this.name = "ConfigurationError";
    }
  }
  S.ConfigurationError = ConfigurationError;
  function notImplemented(name) {
    return () => {
      throw new ConfigurationError(name + " not implemented");
    };
  }
  function stripUndefined(obj) {
    var out = {};
    for (var k of Object.keys(obj || {})) if (obj[k] !== undefined) out[k] = obj[k];
    return out;
  }
  function axiosRequest($, config) {
    var bytes = S.load("bytes");
    var urls = S.load("url");
    var fetch = S.load("fetch").fetch;
    config = config || {};
    var url = config.url || "";
    if (config.baseURL && !/^https?:\/\//i.test(url))
      url = config.baseURL.replace(/\/+$/, "") + "/" + url.replace(/^\/+/, "");
    var params = stripUndefined(config.params);
    var u = new urls.URL(url);
    for (var key of Object.keys(params)) {
      var v = params[key];
      if (Array.isArray(v)) for (var item of v) u.searchParams.append(key + "[]", item);
      else u.searchParams.append(key, typeof v === "object" && v !== null ? S.jsonStringify(v) : v);
    }
    var headers = Object.assign({}, config.headers);
    var body;
    if (config.data !== undefined) {
      if (
        typeof config.data === "string" ||
        config.data instanceof urls.URLSearchParams ||
        ArrayBuffer.isView(config.data)
      )
        body = config.data;
      else {
        body = S.jsonStringify(config.data);
        var hasType = Object.keys(headers).some((h) => h.toLowerCase() === "content-type");
        if (!hasType) headers["Content-Type"] = "application/json";
      }
    }
    if (config.auth)
      headers.Authorization = "Basic " + bytes.btoa(config.auth.username + ":" + config.auth.password);
    var method = String(config.method || "GET").toUpperCase();
    return fetch(u.href, { method: method, headers: headers, body: body }).then((res) =>
      responseBody(res, config.responseType).then((text) => {
        var data = text;
        if (typeof text === "string" && config.responseType !== "text") {
          try {
            data = text === "" ? "" : S.jsonParse(text);
          } catch (_e) {
            data = text;
          }
        }
        var headersObj = {};
        res.headers.forEach((v, k) => (headersObj[k] = v));
        var response = {
          data: data,
          status: res.status,
          statusText: res.statusText,
          headers: headersObj,
          config: config,
        };
        var ok = config.validateStatus
          ? config.validateStatus(res.status)
          : res.status >= 200 && res.status < 300;
        if (!ok) {
          var err = new Error("Request failed with status code " + res.status);
          err.name = "AxiosError";
          err.response = response;
          err.status = res.status;
          if ($ && typeof $.export === "function") $.export("debug", { status: res.status, data: data });
          throw err;
        }
        return config.returnFullResponse ? response : data;
      }),
    );
  }
  // "arraybuffer" gives a Buffer and "stream" a Readable of it, as axios does in Node.
  function responseBody(res, type) {
    if (type !== "arraybuffer" && type !== "stream") return res.text();
    return res.arrayBuffer().then((ab) => {
      var buf = S.load("bytes").Buffer.from(ab);
      return type === "stream" ? S.load("stream").Readable.from([buf], { objectMode: false }) : buf;
    });
  }
  function axios($, config) {
    return axiosRequest($, config);
  }
  axios.create = (defaults) => {
    function instance($, config) {
      var merged = Object.assign({}, defaults, config);
      merged.headers = Object.assign({}, defaults && defaults.headers, config && config.headers);
      return axiosRequest($, merged);
    }
    instance.create = axios.create;
    return instance;
  };
  var platform = {
    axios: axios,
    ConfigurationError: ConfigurationError,
    DEFAULT_POLLING_SOURCE_TIMER_INTERVAL: 60 * 15,
    // The mixins database apps spread into their methods; the app overrides each one.
    sqlProp: {
      methods: {
        executeQueryAdapter: notImplemented("executeQueryAdapter"),
        getSchema: notImplemented("getSchema"),
      },
    },
    sqlProxy: {
      methods: {
        getClientConfiguration: notImplemented("getClientConfiguration"),
        executeQuery: notImplemented("executeQuery"),
        proxyAdapter: notImplemented("proxyAdapter"),
      },
    },
    default: undefined,
  };
  platform.default = platform;
  function identity(x) {
    return x;
  }
  var types = { defineApp: identity, defineAction: identity, defineSource: identity };
  types.default = types;
  return { modules: { "@pipedream/platform": platform, "@pipedream/types": types } };
});
