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
  // getFileStream(AndMetadata) as @pipedream/platform 3 has them: a data: URL, an http(s) URL
  // (fetched whole through the guarded fetch) or a path in the sandbox's /tmp, as a Readable.
  var MIME = {
    txt: "text/plain",
    csv: "text/csv",
    html: "text/html",
    htm: "text/html",
    json: "application/json",
    xml: "application/xml",
    pdf: "application/pdf",
    zip: "application/zip",
    gz: "application/gzip",
    png: "image/png",
    jpg: "image/jpeg",
    jpeg: "image/jpeg",
    gif: "image/gif",
    webp: "image/webp",
    svg: "image/svg+xml",
    bmp: "image/bmp",
    ico: "image/vnd.microsoft.icon",
    mp4: "video/mp4",
    mov: "video/quicktime",
    webm: "video/webm",
    avi: "video/x-msvideo",
    mp3: "audio/mpeg",
    wav: "audio/wav",
    ogg: "audio/ogg",
    m4a: "audio/mp4",
    md: "text/markdown",
    js: "text/javascript",
    doc: "application/msword",
    xls: "application/vnd.ms-excel",
    ppt: "application/vnd.ms-powerpoint",
    docx: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    xlsx: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
    pptx: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  };
  function mimeOf(name) {
    var m = /\.([^./]+)$/.exec(name || "");
    return (m && MIME[m[1].toLowerCase()]) || undefined;
  }
  function extensionOf(type) {
    for (var ext of Object.keys(MIME)) if (MIME[ext] === type) return ext;
    return undefined;
  }
  function baseName(p) {
    return String(p).replace(/\/+$/, "").split("/").pop();
  }
  function readable(buf) {
    return S.load("stream").Readable.from([buf], { objectMode: false });
  }
  function dataUrl(url) {
    var m = /^data:([^;,]*)?(?:;([^,]*))?,([\s\S]*)$/.exec(url);
    if (!m) throw new Error("Invalid data URL format");
    var type = m[1] || "text/plain;charset=US-ASCII";
    var base64 = false;
    var name;
    for (var part of (m[2] || "").split(";").filter(Boolean)) {
      var lower = part.toLowerCase();
      if (lower === "base64") base64 = true;
      else if (lower.startsWith("name=")) name = decodeURIComponent(part.slice(5));
      else if (lower.startsWith("filename=")) name = decodeURIComponent(part.slice(9));
    }
    var Buffer = S.load("bytes").Buffer;
    var buf = base64 ? Buffer.from(m[3], "base64") : Buffer.from(decodeURIComponent(m[3]), "utf-8");
    if (!name) name = extensionOf(type) ? "file." + extensionOf(type) : "file";
    return { stream: readable(buf), metadata: { size: buf.length, contentType: type, name: name } };
  }
  function isUrl(p) {
    try {
      new (S.load("url").URL)(p);
      return true;
    } catch (_e) {
      return false;
    }
  }
  async function remoteFile(url) {
    var res = await S.load("fetch").fetch(url);
    if (!res.ok) throw new Error("Failed to fetch " + url + ": " + res.status + " " + res.statusText);
    var buf = S.load("bytes").Buffer.from(await res.arrayBuffer());
    var path = new (S.load("url").URL)(url).pathname;
    var modified = res.headers.get("last-modified");
    var metadata = {
      contentType: res.headers.get("content-type") || mimeOf(path),
      lastModified: modified ? new Date(modified) : undefined,
      name: baseName(path),
      etag: res.headers.get("etag") || undefined,
      size: buf.length,
    };
    return { stream: readable(buf), metadata: metadata };
  }
  async function localFile(path) {
    var fs = S.load("fs").modules.fs;
    var stats;
    try {
      stats = await fs.promises.stat(path);
    } catch (_e) {
      throw new Error("File not found: " + path);
    }
    var metadata = {
      size: stats.size,
      lastModified: stats.mtime,
      name: baseName(path),
      contentType: mimeOf(path),
    };
    return { stream: fs.createReadStream(path), metadata: metadata };
  }
  async function getFileStreamAndMetadata(pathOrUrl) {
    if (String(pathOrUrl).startsWith("data:")) return dataUrl(pathOrUrl);
    return isUrl(pathOrUrl) ? remoteFile(pathOrUrl) : localFile(pathOrUrl);
  }
  async function getFileStream(pathOrUrl) {
    return (await getFileStreamAndMetadata(pathOrUrl)).stream;
  }
  var platform = {
    axios: axios,
    ConfigurationError: ConfigurationError,
    getFileStream: getFileStream,
    getFileStreamAndMetadata: getFileStreamAndMetadata,
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
