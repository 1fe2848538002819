// Lazily loaded guest file (see core.js): `load(name)` evaluates it on first use and calls the
// function with the shared scope S.
// The value of an `http_request` prop: the request the user configured (`url`, `method`,
// `headers`, `params`, `body`, `auth`), with Pipedream's `execute()`, which sends it through fetch
// (the host's guarded transport, as every request of the component) and resolves with the response
// as axios gives it (`status`, `statusText`, `headers`, `data`); a status outside 2xx rejects, as
// axios does, with the response on the error.
(function (S) {
  var bytes = S.load("bytes");

  // Name-value pairs of a list (`[{ name, value }]`, as Pipedream's request builder keeps them,
  // or `{ key, value }`) or of an object; entries without a name are left out.
  function pairs(v) {
    var out = [];
    if (Array.isArray(v)) {
      for (var item of v) {
        if (!item || typeof item !== "object") continue;
        var name = item.name !== undefined ? item.name : item.key;
        if (name === undefined || name === null || name === "" || item.disabled) continue;
        out.push([String(name), item.value === undefined || item.value === null ? "" : item.value]);
      }
    } else if (v && typeof v === "object") {
      for (var k of Object.keys(v)) if (v[k] !== undefined) out.push([k, v[k]]);
    }
    return out;
  }

  function text(v) {
    return typeof v === "string" ? v : S.jsonStringify(v);
  }

  function hasHeader(headers, name) {
    return Object.keys(headers).some((k) => k.toLowerCase() === name);
  }

  // The body to send and its content type: a string as it is; `{ type: "raw", raw }` (or
  // `mode`); `{ fields: [...] }` as JSON, or form-encoded for that content type; any other object
  // as JSON.
  function bodyOf(body) {
    if (body === undefined || body === null || body === "") return undefined;
    if (typeof body === "string") return { data: body };
    if (typeof body !== "object") return { data: String(body) };
    var type = body.contentType;
    var mode = body.type || body.mode;
    if (mode === "raw" || (body.raw !== undefined && body.fields === undefined)) {
      if (body.raw === undefined || body.raw === null || body.raw === "") return undefined;
      return { data: text(body.raw), type: type };
    }
    if (mode === "fields" || Array.isArray(body.fields)) {
      var fields = pairs(body.fields);
      if (fields.length === 0) return undefined;
      if (type && /x-www-form-urlencoded/i.test(type)) {
        var form = new S.G.URLSearchParams();
        for (var f of fields) form.append(f[0], text(f[1]));
        return { data: form.toString(), type: type };
      }
      var object = {};
      for (var g of fields) object[g[0]] = g[1];
      return { data: S.jsonStringify(object), type: type || "application/json" };
    }
    return { data: S.jsonStringify(body), type: "application/json" };
  }

  function authHeader(auth) {
    if (!auth || typeof auth !== "object") return undefined;
    var type = auth.type || (auth.token ? "bearer" : auth.username !== undefined ? "basic" : "none");
    if (type === "bearer" && auth.token) return "Bearer " + auth.token;
    if (type === "basic" && (auth.username || auth.password)) {
      var pair = String(auth.username || "") + ":" + String(auth.password || "");
      return "Basic " + bytes.base64Encode(bytes.utf8Encode(pair), false);
    }
    return undefined;
  }

  async function execute(config) {
    if (typeof config.url !== "string" || config.url === "")
      throw new TypeError("this http_request prop has no URL configured");
    var url = new S.G.URL(config.url);
    for (var p of pairs(config.params)) url.searchParams.append(p[0], text(p[1]));
    var method = String(config.method || "GET").toUpperCase();
    var headers = {};
    for (var h of pairs(config.headers)) headers[h[0]] = text(h[1]);
    var auth = authHeader(config.auth);
    if (auth && !hasHeader(headers, "authorization")) headers.Authorization = auth;
    var body = method === "GET" || method === "HEAD" ? undefined : bodyOf(config.body);
    if (body && body.type && !hasHeader(headers, "content-type")) headers["Content-Type"] = body.type;
    var res = await S.load("fetch").fetch(url.href, {
      method: method,
      headers: headers,
      body: body ? body.data : undefined,
    });
    var raw = await res.text();
    var data = raw;
    if (/json/i.test(res.headers.get("content-type") || "") && raw !== "") {
      try {
        data = S.jsonParse(raw);
      } catch (_) {
        data = raw;
      }
    }
    var responseHeaders = {};
    res.headers.forEach((v, k) => {
      responseHeaders[k] = v;
    });
    var response = { status: res.status, statusText: res.statusText, headers: responseHeaders, data: data };
    if (res.status >= 200 && res.status < 300) return response;
    var error = new Error("Request failed with status code " + res.status);
    error.code = res.status >= 500 ? "ERR_BAD_RESPONSE" : "ERR_BAD_REQUEST";
    error.status = res.status;
    error.response = response;
    throw error;
  }

  // The prop's value: the configured request (a copy) with a non-enumerable `execute()`.
  function httpRequest(configured) {
    var config = configured && typeof configured === "object" ? S.jsonParse(S.jsonStringify(configured)) : {};
    var value = Object.assign({}, config);
    Object.defineProperty(value, "execute", { value: () => execute(config), enumerable: false });
    return value;
  }

  return { httpRequest: httpRequest };
});
